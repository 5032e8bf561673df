// SnapshotImage → snapshot-file bytes, and a live state → SnapshotImage (snapshot_codec.h).
// The only writer of the format: hash/'s encode_snapshot and inspect/'s encode_state both end
// here, so a file is the same bytes whichever side wrote it.
#include <lockstep/io/byte_order.h>
#include <lockstep/io/snapshot_codec.h>
#include <lockstep/query/view_state.h>
#include <lockstep/store/world.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include <cstring>

namespace lockstep::io {
namespace {

void put8(std::vector<std::byte>& o, std::uint8_t v) { o.push_back(static_cast<std::byte>(v)); }
void put_str(std::vector<std::byte>& o, const std::string& s) {
  append_u32(o, static_cast<std::uint32_t>(s.size()));
  for (char c : s) o.push_back(static_cast<std::byte>(c));
}
void put_type(std::vector<std::byte>& o, const SnapshotType& t) {
  put_str(o, t.name);
  append_u32(o, t.size);
  append_u32(o, static_cast<std::uint32_t>(t.fields.size()));
  for (const SnapshotField& f : t.fields) {
    put_str(o, f.name);
    append_u32(o, f.offset);
    append_u16(o, f.element_size);
    append_u16(o, f.count);
    put8(o, f.kind);
  }
}

SnapshotType type_of(const TypeDescriptor& d) {
  SnapshotType t;
  t.name = d.name;
  t.size = d.size;
  t.fields.reserve(d.field_count);
  for (std::uint32_t f = 0; f < d.field_count; ++f) {
    const FieldDescriptor& fd = d.fields[f];
    t.fields.push_back({fd.name, fd.offset, fd.element_size, fd.count, static_cast<std::uint8_t>(fd.kind)});
  }
  return t;
}

std::vector<std::byte> canonical_rows(const TypeDescriptor& d, const std::byte* data, std::uint64_t rows) {
  std::vector<std::byte> out;
  out.reserve(static_cast<std::size_t>(rows * d.size));
  if (kLittleHost) {
    if (rows != 0) out.insert(out.end(), data, data + rows * d.size);
  } else {
    encode_rows_canonical(d, data, rows, [&out](const std::byte* p, std::size_t n) { out.insert(out.end(), p, p + n); });
  }
  return out;
}

CodecStatus invalid(const std::string& what) {
  CodecStatus st;
  st.code = ErrorCode::InvalidArgument;
  st.message = "<encode>: byte 0: " + what;
  return st;
}

}  // namespace

std::uint64_t snapshot_checksum(std::span<const std::byte> body) noexcept {
  return XXH3_64bits(body.data(), body.size());
}

void encode_snapshot_image(const SnapshotImage& s, std::vector<std::byte>& o) {
  o.clear();
  put8(o, 1);  // little-endian flag (the first byte cereal's portable archives write)
  for (char c : kSnapshotMagic) o.push_back(static_cast<std::byte>(c));
  append_u32(o, s.has_views ? kSnapshotVersionViews : kSnapshotVersion);
  append_u32(o, 0);
  append_u32(o, static_cast<std::uint32_t>(s.components.size()));
  for (const SnapshotType& t : s.components) put_type(o, t);
  append_u32(o, static_cast<std::uint32_t>(s.resources.size()));
  for (const SnapshotType& t : s.resources) put_type(o, t);
  append_u64(o, s.tick);
  append_u32(o, static_cast<std::uint32_t>(s.generations.size()));
  for (std::uint32_t g : s.generations) append_u32(o, g);
  for (std::uint8_t a : s.alive) put8(o, a);
  append_u32(o, static_cast<std::uint32_t>(s.free_slots.size()));
  for (std::uint32_t f : s.free_slots) append_u32(o, f);
  append_u32(o, static_cast<std::uint32_t>(s.archetypes.size()));
  for (const SnapshotArchetype& a : s.archetypes) {
    append_u32(o, static_cast<std::uint32_t>(a.components.size()));
    for (std::uint32_t c : a.components) put8(o, static_cast<std::uint8_t>(c));
    append_u32(o, static_cast<std::uint32_t>(a.slots.size()));
    for (std::uint32_t sl : a.slots) append_u32(o, sl);
    for (const auto& col : a.columns) o.insert(o.end(), col.begin(), col.end());
  }
  for (const auto& v : s.resource_values) o.insert(o.end(), v.begin(), v.end());
  if (s.has_views) {
    append_u64(o, s.views.size());
    o.insert(o.end(), s.views.begin(), s.views.end());
  }
  append_u64(o, snapshot_checksum(o));
}

CodecStatus snapshot_image_of(const StorageView& state, SnapshotImage& s) {
  s = SnapshotImage{};
  for (std::uint32_t c = 0; c < state.component_count(); ++c)
    if (!fields_tile(state.component(c)))
      return invalid(std::string("component '") + state.component(c).name + "': fields do not tile the type");
  for (std::uint32_t r = 0; r < state.resource_count(); ++r)
    if (!fields_tile(state.resource(r)))
      return invalid(std::string("resource '") + state.resource(r).name + "': fields do not tile the type");
  // The format has no place for row state; refusing beats silently dropping it on a round trip.
  if (state.disabled_count() != 0 || !state.tracked_components().empty())
    return invalid("snapshot files (format 1) do not carry enable bits or change ticks; this world has " +
                   std::to_string(state.disabled_count()) + " disabled component(s) and " +
                   std::to_string(state.tracked_components().size()) + " change-tracked component(s)");
  for (std::uint32_t c = 0; c < state.component_count(); ++c) s.components.push_back(type_of(state.component(c)));
  for (std::uint32_t r = 0; r < state.resource_count(); ++r) s.resources.push_back(type_of(state.resource(r)));
  s.tick = state.tick();
  const std::uint32_t slots = state.slot_count();
  s.generations.assign(state.generations().begin(), state.generations().begin() + slots);
  s.alive.assign(state.alive().begin(), state.alive().begin() + slots);
  s.free_slots.assign(state.free_slots().begin(), state.free_slots().end());
  s.archetypes.resize(state.archetype_count());
  for (std::uint32_t a = 0; a < state.archetype_count(); ++a) {
    SnapshotArchetype& arch = s.archetypes[a];
    const auto comps = state.archetype_components(a);
    const std::uint32_t rows = state.archetype_rows(a);
    arch.components.assign(comps.begin(), comps.end());
    arch.slots.assign(state.archetype_slots(a).begin(), state.archetype_slots(a).begin() + rows);
    for (std::uint32_t i = 0; i < comps.size(); ++i)
      arch.columns.push_back(canonical_rows(state.component(comps[i]), state.column_bytes(a, i).data(), rows));
  }
  for (std::uint32_t r = 0; r < state.resource_count(); ++r)
    s.resource_values.push_back(canonical_rows(state.resource(r), state.resource_bytes(r).data(), 1));
  return CodecStatus{};
}

CodecStatus snapshot_image_of(const World& world, SnapshotImage& s) {
  CodecStatus st = snapshot_image_of(world.storage(), s);
  if (!st.ok()) return st;
  const Status v = encodeViewState(world, s.views);
  if (!v.ok()) return invalid(std::string("view state: ") + (v.message() != nullptr ? v.message() : ""));
  s.has_views = !s.views.empty();
  s.version = s.has_views ? kSnapshotVersionViews : kSnapshotVersion;
  return CodecStatus{};
}

}  // namespace lockstep::io
