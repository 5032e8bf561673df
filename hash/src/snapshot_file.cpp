// Snapshot files into and out of a World (docs/hashing.md, "Snapshot files"). The bytes are
// read and written by io/'s codec (snapshot_codec.h), the same one inspect/ uses; this file
// maps the file's schema onto a target world by name and converts values to host order.
#include <lockstep/hash/bounded_read.h>
#include <lockstep/hash/durable_file.h>
#include <lockstep/hash/snapshot_file.h>
#include <lockstep/hash/world_snapshot.h>
#include <lockstep/io/byte_order.h>
#include <lockstep/io/snapshot_codec.h>
#include <lockstep/query/view_state.h>
#include <lockstep/store/world.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <utility>

namespace lockstep {
namespace {

using io::fields_tile;

static_assert(kSnapshotFileVersion == io::kSnapshotVersion && kSnapshotFileVersionViews == io::kSnapshotVersionViews);

FileStatus from_codec(io::CodecStatus&& st) {
  FileStatus out;
  out.code = st.code;
  out.message = std::move(st.message);
  out.offset = st.offset;
  return out;
}

constexpr std::uint64_t kChecksumBytes = 8;
// endianness flag + magic + version + flags
constexpr std::uint64_t kPreambleBytes = 1 + 8 + 4 + 4;

FileStatus fail(ErrorCode code, std::string_view file, std::uint64_t offset, const std::string& what) {
  FileStatus st;
  st.code = code;
  st.offset = offset;
  st.message = std::string(file) + ": byte " + std::to_string(offset) + ": " + what;
  return st;
}

std::uint64_t encoded_type_size(const TypeDescriptor& d) noexcept {
  std::uint64_t n = 4 + std::strlen(d.name) + 4 + 4;
  for (std::uint32_t f = 0; f < d.field_count; ++f) n += 4 + std::strlen(d.fields[f].name) + 4 + 2 + 2 + 1;
  return n;
}

// Schema equality of a file type and the target's descriptor; Mismatch names what differs.
FileStatus check_type(std::string_view file, const io::SnapshotType& t, const TypeDescriptor& d, const char* kind) {
  const std::string who = std::string(kind) + " '" + t.name + "'";
  if (t.size != d.size)
    return fail(ErrorCode::Mismatch, file, t.at,
                who + ": size " + std::to_string(t.size) + " in file, " + std::to_string(d.size) + " in world");
  if (!fields_tile(d)) return fail(ErrorCode::Mismatch, file, t.at, who + ": fields do not tile the type in the world");
  const std::size_t n = std::max<std::size_t>(t.fields.size(), d.field_count);
  for (std::size_t i = 0; i < n; ++i) {
    if (i >= t.fields.size())
      return fail(ErrorCode::Mismatch, file, t.at, who + ": field '" + d.fields[i].name + "' missing from file");
    const io::SnapshotField& f = t.fields[i];
    if (i >= d.field_count)
      return fail(ErrorCode::Mismatch, file, t.at, who + ": field '" + f.name + "' not in the world's type");
    const FieldDescriptor& g = d.fields[i];
    std::string what;
    if (f.name != g.name)
      what = "field " + std::to_string(i) + " is '" + f.name + "' in file, '" + g.name + "' in world";
    else if (f.offset != g.offset)
      what = "field '" + f.name + "' offset " + std::to_string(f.offset) + " in file, " + std::to_string(g.offset) + " in world";
    else if (f.element_size != g.element_size)
      what = "field '" + f.name + "' element size " + std::to_string(f.element_size) + " in file, " +
             std::to_string(g.element_size) + " in world";
    else if (f.count != g.count)
      what = "field '" + f.name + "' count " + std::to_string(f.count) + " in file, " + std::to_string(g.count) + " in world";
    else if (f.kind != static_cast<std::uint8_t>(g.kind))
      what = "field '" + f.name + "' kind " + std::to_string(f.kind) + " in file, " +
             std::to_string(static_cast<unsigned>(g.kind)) + " in world";
    if (!what.empty()) return fail(ErrorCode::Mismatch, file, t.at, who + ": " + what);
  }
  return FileStatus::Ok();
}

// Maps a file schema table onto the target's ids by name: target[file id] = world id.
FileStatus map_schema(std::string_view file, const std::vector<io::SnapshotType>& types, std::uint64_t table_at,
                      bool components, const World& world, std::vector<std::uint32_t>& target) {
  const char* kind = components ? "component" : "resource";
  const StorageView view = world.storage();
  const std::uint32_t count = components ? view.component_count() : view.resource_count();
  if (types.size() != count)
    return fail(ErrorCode::Mismatch, file, table_at,
                std::string(kind) + " count " + std::to_string(types.size()) + " in file, " + std::to_string(count) +
                    " registered in the world");
  std::vector<bool> seen(count, false);
  target.assign(count, 0);
  for (std::size_t i = 0; i < types.size(); ++i) {
    const io::SnapshotType& t = types[i];
    const std::int32_t id = components ? world.componentIdByName(t.name.c_str()) : world.resourceIdByName(t.name.c_str());
    if (id < 0 || static_cast<std::uint32_t>(id) >= count)
      return fail(ErrorCode::Mismatch, file, t.at, std::string(kind) + " '" + t.name + "' in file is not registered in the world");
    if (seen[static_cast<std::size_t>(id)])
      return fail(ErrorCode::Corrupt, file, t.at, std::string(kind) + " '" + t.name + "' appears twice in file");
    seen[static_cast<std::size_t>(id)] = true;
    target[i] = static_cast<std::uint32_t>(id);
    const TypeDescriptor& d = components ? view.component(target[i]) : view.resource(target[i]);
    if (FileStatus st = check_type(file, t, d, kind); !st.ok()) return st;
  }
  return FileStatus::Ok();
}

// Archetype columns and resources in the target's ids and host byte order.
void to_parts(io::SnapshotImage& img, const std::vector<std::uint32_t>& comp_ids, const std::vector<std::uint32_t>& res_ids,
              const World& world, SnapshotParts& out) {
  const StorageView view = world.storage();
  out.tick = img.tick;
  out.generations = std::move(img.generations);
  out.alive = std::move(img.alive);
  out.free_slots = std::move(img.free_slots);
  out.archetypes.resize(img.archetypes.size());
  for (std::size_t a = 0; a < img.archetypes.size(); ++a) {
    io::SnapshotArchetype& src = img.archetypes[a];
    SnapshotParts::ArchetypePart& part = out.archetypes[a];
    const std::size_t k = src.components.size();
    // Target ids, re-sorted ascending; file column i lands at the position of its target id.
    std::vector<std::uint8_t> ids(k);
    for (std::size_t i = 0; i < k; ++i) ids[i] = static_cast<std::uint8_t>(comp_ids[src.components[i]]);
    std::sort(ids.begin(), ids.end());
    part.component_ids = ids;
    part.slots = std::move(src.slots);
    part.columns.assign(k, {});
    for (std::size_t i = 0; i < k; ++i) {
      const std::uint32_t t = comp_ids[src.components[i]];
      const std::size_t at = static_cast<std::size_t>(std::find(ids.begin(), ids.end(), t) - ids.begin());
      part.columns[at] = std::move(src.columns[i]);
      io::rows_from_le_inplace(view.component(t), part.columns[at].data(), part.slots.size());
    }
  }
  out.resources.assign(img.resource_values.size(), {});
  for (std::size_t i = 0; i < img.resource_values.size(); ++i) {
    std::vector<std::byte>& bytes = out.resources[res_ids[i]];
    bytes = std::move(img.resource_values[i]);
    io::rows_from_le_inplace(view.resource(res_ids[i]), bytes.data(), 1);
  }
}

FileStatus from_kernel(const Status& st, std::string_view file, const char* stage) {
  FileStatus out;
  out.code = st.code();
  out.message = std::string(file) + ": " + stage + ": " + to_string(st.code()) + ": " +
                (st.message() != nullptr ? st.message() : "");
  return out;
}

FileStatus read_all(const std::string& path, const World& target, std::vector<std::byte>& bytes) {
  hash::ReadLimits limits;
  limits.max_file_bytes = max_snapshot_file_size(target);
  limits.max_stream_bytes = limits.max_file_bytes;
  limits.sniff_bytes = 1 + sizeof(kSnapshotFileMagic);
  const auto sniff = [](std::span<const std::byte> head) -> std::string {
    if (head.empty()) return {};  // decode_snapshot reports the truncation
    if (std::to_integer<std::uint8_t>(head[0]) != 1 ||
        std::memcmp(head.data() + 1, kSnapshotFileMagic, std::min(head.size() - 1, sizeof(kSnapshotFileMagic))) != 0)
      return "bad magic: not a lockstep snapshot file";
    return {};
  };
  hash::ReadFailure failure;
  if (!hash::read_file_bounded(path, limits, sniff, bytes, failure)) return fail(failure.code, path, failure.offset, failure.what);
  return FileStatus::Ok();
}

}  // namespace

// ---- public ------------------------------------------------------------------------------

FileStatus encode_snapshot(const StorageView& state, std::vector<std::byte>& out) {
  out.clear();
  io::SnapshotImage image;
  if (io::CodecStatus st = io::snapshot_image_of(state, image); !st.ok()) return from_codec(std::move(st));
  io::encode_snapshot_image(image, out);
  return FileStatus::Ok();
}

FileStatus encode_world_snapshot(const World& world, std::vector<std::byte>& out) {
  out.clear();
  io::SnapshotImage image;
  if (io::CodecStatus st = io::snapshot_image_of(world, image); !st.ok()) return from_codec(std::move(st));
  io::encode_snapshot_image(image, out);
  return FileStatus::Ok();
}

std::uint32_t snapshot_file_version(std::span<const std::byte> bytes) noexcept { return io::snapshot_file_version(bytes); }

namespace {
FileStatus write_encoded(const std::string& path, FileStatus st, const std::vector<std::byte>& bytes) {
  if (!st.ok()) {
    st.message = path + ": " + st.message;
    return st;
  }
  hash::WriteFailure failure;
  if (!hash::write_file_atomically(path, bytes.data(), bytes.size(), failure))
    return fail(ErrorCode::IoError, failure.failed_path, failure.written, failure.what);
  return FileStatus::Ok();
}
}  // namespace

FileStatus write_snapshot_file(const std::string& path, const StorageView& state) {
  std::vector<std::byte> bytes;
  FileStatus st = encode_snapshot(state, bytes);
  return write_encoded(path, std::move(st), bytes);
}

// A World also knows its views: format 2 when it has any.
FileStatus write_snapshot_file(const std::string& path, const World& world) {
  std::vector<std::byte> bytes;
  FileStatus st = encode_world_snapshot(world, bytes);
  return write_encoded(path, std::move(st), bytes);
}

FileStatus write_snapshot_file(const std::string& path, const Snapshot& snapshot) {
  if (snapshot.empty()) return fail(ErrorCode::InvalidArgument, path, 0, "snapshot is empty");
  return write_snapshot_file(path, snapshot.view());
}

std::uint64_t max_snapshot_file_size(const World& target) noexcept {
  const StorageView view = target.storage();
  const WorldConfig& cfg = target.config();
  std::uint64_t n = kPreambleBytes + 4 + 4 + kChecksumBytes + 8;
  for (std::uint32_t c = 0; c < view.component_count(); ++c) n += encoded_type_size(view.component(c));
  for (std::uint32_t r = 0; r < view.resource_count(); ++r) {
    n += encoded_type_size(view.resource(r));
    n += view.resource(r).size;
  }
  n += 4 + std::uint64_t{cfg.max_entities} * 5 + 4 + std::uint64_t{cfg.max_entities} * 4;
  n += 4 + std::uint64_t{WorldConfig::kMaxArchetypesLimit} * (4 + detail::kMaxColumns + 4);
  n += cfg.effective_row_bytes();
  if (const std::size_t views = maxViewStateBytes(target); views != 0) n += 8 + views;
  return n;
}

namespace {
// decode_snapshot plus the file's view section (canonical bytes; empty for format 1).
FileStatus decode_with_views(std::span<const std::byte> bytes, const World& target, SnapshotParts& out,
                             std::vector<std::byte>& views, std::uint64_t& views_at, std::string_view name) {
  out = SnapshotParts{};
  views.clear();
  const std::uint64_t bound = max_snapshot_file_size(target);
  if (bytes.size() > bound)
    return fail(ErrorCode::CapacityExceeded, name, 0,
                "file is " + std::to_string(bytes.size()) + " bytes, more than the " + std::to_string(bound) +
                    " bytes any state of the target world can take");
  io::SnapshotLimits limits;
  limits.max_slots = target.config().max_entities;
  limits.max_archetypes = std::min<std::uint32_t>(target.config().max_archetypes, WorldConfig::kMaxArchetypesLimit);
  io::SnapshotImage image;
  if (io::CodecStatus st = io::decode_snapshot_image(bytes, image, name, limits); !st.ok()) return from_codec(std::move(st));
  std::vector<std::uint32_t> comp_ids, res_ids;
  const std::uint64_t components_at = kPreambleBytes;
  const std::uint64_t resources_at = image.resources.empty() ? bytes.size() - kChecksumBytes : image.resources[0].at - 4;
  if (FileStatus st = map_schema(name, image.components, components_at, true, target, comp_ids); !st.ok()) return st;
  if (FileStatus st = map_schema(name, image.resources, resources_at, false, target, res_ids); !st.ok()) return st;
  // The view section names components by file id; a file whose components are in another
  // order than the world's registration is refused rather than remapped (its views could not
  // be the world's views anyway: they are registered by the same sim code).
  if (image.has_views)
    for (std::size_t i = 0; i < comp_ids.size(); ++i)
      if (comp_ids[i] != i)
        return fail(ErrorCode::Mismatch, name, image.views_at,
                    "the view section needs the file's components in the world's registration order ('" +
                        image.components[i].name + "' is component " + std::to_string(i) + " in file, " +
                        std::to_string(comp_ids[i]) + " in world)");
  views = std::move(image.views);
  views_at = image.views_at;
  to_parts(image, comp_ids, res_ids, target, out);
  return FileStatus::Ok();
}
}  // namespace

FileStatus decode_snapshot(std::span<const std::byte> bytes, const World& target, SnapshotParts& out,
                           std::string_view name) {
  std::vector<std::byte> views;
  std::uint64_t views_at = 0;
  return decode_with_views(bytes, target, out, views, views_at, name);
}

FileStatus read_snapshot_file(const std::string& path, const World& target, SnapshotParts& out) {
  std::vector<std::byte> bytes;
  FileStatus st = read_all(path, target, bytes);
  if (!st.ok()) return st;
  return decode_snapshot(bytes, target, out, path);
}

// World::load resets the views of a snapshot built from a file; a format-2 file's view state
// is checked against the world before anything changes and installed after the load.
FileStatus load_snapshot_bytes(std::span<const std::byte> bytes, World& world, Snapshot& scratch,
                               std::string_view name) {
  SnapshotParts parts;
  std::vector<std::byte> views, host;
  std::uint64_t views_at = 0;
  FileStatus st = decode_with_views(bytes, world, parts, views, views_at, name);
  if (!st.ok()) return st;
  if (!views.empty()) {
    std::uint64_t offset = 0;
    const Status v = prepareViewState(world, views, host, offset);
    if (!v.ok())
      return fail(v.code(), name, views_at + offset,
                  std::string("view section: ") + (v.message() != nullptr ? v.message() : ""));
  }
  const Status a = scratch.assign(world, parts);
  if (!a.ok()) return from_kernel(a, name, "Snapshot::assign rejected the file's state");
  const Status l = world.load(scratch);
  if (!l.ok()) return from_kernel(l, name, "World::load rejected the file's state");
  if (!views.empty()) restoreViewState(world, host);
  return FileStatus::Ok();
}

FileStatus load_snapshot_file(const std::string& path, World& world, Snapshot& scratch) {
  std::vector<std::byte> bytes;
  FileStatus st = read_all(path, world, bytes);
  if (!st.ok()) return st;
  return load_snapshot_bytes(bytes, world, scratch, path);
}

}  // namespace lockstep
