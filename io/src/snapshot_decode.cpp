// Snapshot files → SnapshotImage (snapshot_codec.h; layout in docs/hashing.md). The only
// parser of the format: hash/ and inspect/ both call decode_snapshot_image.
#include <lockstep/io/byte_order.h>
#include <lockstep/io/le_reader.h>
#include <lockstep/io/snapshot_codec.h>
#include <lockstep/query/view_state.h>

#include <algorithm>
#include <cstring>

namespace lockstep::io {
namespace {

constexpr std::uint32_t kMaxName = 255;
constexpr std::uint32_t kMaxFields = 256;
constexpr std::uint32_t kMaxTypes = 256;
constexpr std::uint32_t kMaxColumns = 32;
constexpr std::uint64_t kChecksum = 8;
constexpr std::uint64_t kPreamble = 1 + 8 + 4 + 4;  // endianness flag, magic, version, flags

bool read_type(LeReader& r, SnapshotType& t, const char* what) {
  t.at = r.pos();
  std::uint32_t field_count = 0;
  if (!r.str(t.name, kMaxName, what) || !r.num(t.size, "type size") || !r.num(field_count, "field count")) return false;
  if (field_count > kMaxFields)
    return r.error_at(ErrorCode::Corrupt, t.at, std::string(what) + " '" + t.name + "': expected at most " +
                                                    std::to_string(kMaxFields) + " fields, found " + std::to_string(field_count));
  if (!r.need(std::uint64_t{field_count} * 13, "field list")) return false;
  t.fields.resize(field_count);
  std::uint64_t end = 0;
  for (SnapshotField& f : t.fields) {
    const std::uint64_t fat = r.pos();
    if (!r.str(f.name, kMaxName, "field name") || !r.num(f.offset, "field offset") ||
        !r.num(f.element_size, "field element size") || !r.num(f.count, "field count") || !r.num(f.kind, "field kind"))
      return false;
    if (f.kind < 1 || f.kind > 5)
      return r.error_at(ErrorCode::Corrupt, fat, "field '" + f.name + "': expected a field kind 1..5, found " + std::to_string(f.kind));
    const bool es_ok = f.element_size == 1 || f.element_size == 2 || f.element_size == 4 || f.element_size == 8;
    const bool entity = f.kind == static_cast<std::uint8_t>(FieldKind::Entity);
    if (!es_ok || f.offset != end || (entity && (f.element_size != 4 || f.count % 2 != 0)))
      return r.error_at(ErrorCode::Corrupt, fat, std::string(what) + " '" + t.name + "' field '" + f.name +
                                                     "': expected fields that tile the type in order with element size 1, 2, 4 or 8");
    end += std::uint64_t{f.element_size} * f.count;
  }
  if (end != t.size)
    return r.error_at(ErrorCode::Corrupt, t.at, std::string(what) + " '" + t.name + "': fields cover " + std::to_string(end) +
                                                    " bytes, expected the type size " + std::to_string(t.size));
  return true;
}

bool read_types(LeReader& r, std::vector<SnapshotType>& out, const char* what, const char* count_what) {
  std::uint32_t n = 0;
  const std::uint64_t at = r.pos();
  if (!r.num(n, count_what)) return false;
  if (n > kMaxTypes)
    return r.error_at(ErrorCode::Corrupt, at, std::string("expected at most 256 ") + what + "s, found " + std::to_string(n));
  if (!r.need(std::uint64_t{n} * 12, count_what)) return false;
  out.resize(n);
  for (SnapshotType& t : out)
    if (!read_type(r, t, what)) return false;
  return true;
}

bool read_entities(LeReader& r, SnapshotImage& s, const SnapshotLimits& limits) {
  std::uint64_t at = r.pos();
  std::uint32_t slots = 0;
  if (!r.num(slots, "slot count")) return false;
  if (slots > limits.max_slots)
    return r.error_at(ErrorCode::CapacityExceeded, at, "slot count " + std::to_string(slots) +
                                                           " exceeds the target's max_entities " + std::to_string(limits.max_slots));
  if (!r.need(std::uint64_t{slots} * 5, "entity table") || !r.u32s(s.generations, slots, "generations")) return false;
  at = r.pos();
  s.alive.resize(slots);
  if (!r.raw(s.alive.data(), slots, "liveness")) return false;
  for (std::uint32_t i = 0; i < slots; ++i)
    if (s.alive[i] > 1)
      return r.error_at(ErrorCode::Corrupt, at + i, "liveness of slot " + std::to_string(i) + ": expected 0 or 1, found " +
                                                        std::to_string(s.alive[i]));
  at = r.pos();
  std::uint32_t free_count = 0;
  if (!r.num(free_count, "free-slot count")) return false;
  if (free_count > slots)
    return r.error_at(ErrorCode::Corrupt, at, "expected at most " + std::to_string(slots) + " free slots, found " +
                                                  std::to_string(free_count));
  return r.u32s(s.free_slots, free_count, "free slots");
}

bool read_archetype(LeReader& r, SnapshotImage& s, std::uint32_t a) {
  SnapshotArchetype& arch = s.archetypes[a];
  const std::uint32_t ncomp = static_cast<std::uint32_t>(s.components.size());
  const std::uint32_t slots = static_cast<std::uint32_t>(s.generations.size());
  const std::string who = "archetype " + std::to_string(a);
  std::uint64_t at = r.pos();
  std::uint32_t k = 0;
  if (!r.num(k, "archetype column count")) return false;
  if (k > kMaxColumns || k > ncomp || (a == 0 && k != 0))
    return r.error_at(ErrorCode::Corrupt, at, who + ": expected at most " +
                                                  std::to_string(a == 0 ? 0 : std::min<std::uint32_t>(kMaxColumns, ncomp)) +
                                                  " columns, found " + std::to_string(k));
  at = r.pos();
  std::uint8_t ids[kMaxColumns] = {};
  if (!r.raw(ids, k, "archetype component ids")) return false;
  std::uint64_t row_size = 4;
  arch.components.resize(k);
  for (std::uint32_t i = 0; i < k; ++i) {
    if (ids[i] >= ncomp || (i > 0 && ids[i] <= ids[i - 1]))
      return r.error_at(ErrorCode::Corrupt, at + i, who + ": expected ascending component ids below " + std::to_string(ncomp));
    arch.components[i] = ids[i];
    row_size += s.components[ids[i]].size;
  }
  at = r.pos();
  std::uint32_t rows = 0;
  if (!r.num(rows, "archetype row count")) return false;
  if (rows > slots)
    return r.error_at(ErrorCode::Corrupt, at, who + ": expected at most " + std::to_string(slots) + " rows, found " +
                                                  std::to_string(rows));
  if (!r.need(std::uint64_t{rows} * row_size, "archetype rows")) return false;
  at = r.pos();
  if (!r.u32s(arch.slots, rows, "archetype slot ids")) return false;
  for (std::uint32_t i = 0; i < rows; ++i)
    if (arch.slots[i] >= slots || (i > 0 && arch.slots[i] <= arch.slots[i - 1]) || s.alive[arch.slots[i]] == 0)
      return r.error_at(ErrorCode::Corrupt, at + 4ull * i, who + ": expected ascending ids of live slots");
  arch.columns.resize(k);
  for (std::uint32_t i = 0; i < k; ++i)
    if (!r.bytes(arch.columns[i], std::uint64_t{rows} * s.components[ids[i]].size, "column bytes")) return false;
  return true;
}

bool read_views(LeReader& r, SnapshotImage& s) {
  const std::uint64_t at = r.pos();
  std::uint64_t n = 0;
  if (!r.num(n, "view section length")) return false;
  if (n != r.remaining())
    return r.error_at(ErrorCode::Corrupt, at, "expected a view section of the " + std::to_string(r.remaining()) +
                                                  " bytes before the checksum, length is " + std::to_string(n));
  s.views_at = r.pos();
  if (!r.bytes(s.views, n, "view section")) return false;
  std::vector<std::uint32_t> sizes(s.components.size());
  for (std::size_t i = 0; i < sizes.size(); ++i) sizes[i] = s.components[i].size;
  std::uint64_t offset = 0;
  const Status st = checkViewState(s.views, sizes, static_cast<std::uint32_t>(s.generations.size()), offset);
  if (!st.ok()) return r.error_at(ErrorCode::Corrupt, s.views_at + offset, st.message());
  s.has_views = true;
  return true;
}

bool read_body(LeReader& r, SnapshotImage& s, const SnapshotLimits& limits) {
  if (!read_types(r, s.components, "component", "component count") ||
      !read_types(r, s.resources, "resource", "resource count") || !r.num(s.tick, "tick") || !read_entities(r, s, limits))
    return false;
  const std::uint64_t at = r.pos();
  std::uint32_t archetypes = 0;
  if (!r.num(archetypes, "archetype count")) return false;
  if (archetypes == 0 || archetypes > 256)
    return r.error_at(ErrorCode::Corrupt, at, "expected 1..256 archetypes, found " + std::to_string(archetypes));
  if (archetypes > limits.max_archetypes)
    return r.error_at(ErrorCode::CapacityExceeded, at, "archetype count " + std::to_string(archetypes) +
                                                           " exceeds the target's max_archetypes " +
                                                           std::to_string(limits.max_archetypes));
  if (!r.need(std::uint64_t{archetypes} * 8, "archetype table")) return false;
  s.archetypes.resize(archetypes);
  for (std::uint32_t a = 0; a < archetypes; ++a)
    if (!read_archetype(r, s, a)) return false;
  s.resource_values.resize(s.resources.size());
  for (std::size_t i = 0; i < s.resources.size(); ++i)
    if (!r.bytes(s.resource_values[i], s.resources[i].size, "resource bytes")) return false;
  if (s.version == kSnapshotVersionViews) return read_views(r, s);
  if (r.remaining() != 0)
    return r.error(ErrorCode::Corrupt, "expected the checksum, found " + std::to_string(r.remaining()) + " more bytes");
  return true;
}

std::string hex(std::uint64_t v) {
  static const char* digits = "0123456789abcdef";
  std::string s(16, '0');
  for (int i = 15; i >= 0; --i, v >>= 4) s[static_cast<std::size_t>(i)] = digits[v & 0xFu];
  return s;
}

}  // namespace

std::uint32_t snapshot_file_version(std::span<const std::byte> bytes) noexcept {
  if (bytes.size() < kPreamble || std::to_integer<unsigned>(bytes[0]) != 1 ||
      std::memcmp(bytes.data() + 1, kSnapshotMagic, sizeof kSnapshotMagic) != 0)
    return 0;
  return get_u32(bytes.data() + 9);
}

CodecStatus decode_snapshot_image(std::span<const std::byte> bytes, SnapshotImage& out, std::string_view name,
                                 const SnapshotLimits& limits, bool verify_checksum) {
  out = SnapshotImage{};
  const std::uint64_t size = bytes.size();
  if (size < kPreamble + kChecksum)
    return file_error(name, ErrorCode::Corrupt, size, "truncated: expected at least " + std::to_string(kPreamble + kChecksum) +
                                                          " bytes (snapshot header and checksum), file has " + std::to_string(size));
  if (std::to_integer<unsigned>(bytes[0]) != 1)
    return file_error(name, ErrorCode::Corrupt, 0, "expected the little-endian flag 1, found " +
                                                       std::to_string(std::to_integer<unsigned>(bytes[0])));
  if (std::memcmp(bytes.data() + 1, kSnapshotMagic, sizeof kSnapshotMagic) != 0)
    return file_error(name, ErrorCode::Corrupt, 1, "expected the snapshot magic \"LSSNAP\\r\\n\"");
  // Every format version ends with this checksum, so it is checked before the version.
  const std::uint64_t body = size - kChecksum;
  const std::uint64_t stored = get_u64(bytes.data() + body);
  const std::uint64_t actual = snapshot_checksum(bytes.first(body));
  if (verify_checksum && stored != actual)
    return file_error(name, ErrorCode::Corrupt, body, "expected checksum " + hex(actual) + " of the preceding bytes, stored " +
                                                          hex(stored) + " (truncated or corrupted)");
  LeReader r(bytes.first(body), name);
  std::uint8_t flag = 0;
  char magic[8];
  std::uint32_t flags = 0;
  if (!r.num(flag, "endianness flag") || !r.raw(magic, 8, "magic") || !r.num(out.version, "format version"))
    return std::move(r.status());
  if (out.version != kSnapshotVersion && out.version != kSnapshotVersionViews) {
    (void)r.error_at(ErrorCode::Mismatch, 9, "expected snapshot format version 1 or 2, found " + std::to_string(out.version));
    return std::move(r.status());
  }
  if (!r.num(flags, "flags")) return std::move(r.status());
  if (flags != 0) {
    (void)r.error_at(ErrorCode::Mismatch, 13, "expected flags 0, found " + std::to_string(flags));
    return std::move(r.status());
  }
  if (!read_body(r, out, limits)) {
    out = SnapshotImage{};
    return std::move(r.status());
  }
  return CodecStatus{};
}

}  // namespace lockstep::io
