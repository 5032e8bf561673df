// Snapshot files (docs/hashing.md, "Snapshot files").
#include <lockstep/hash/bounded_read.h>
#include <lockstep/hash/byte_stream.h>
#include <lockstep/hash/durable_file.h>
#include <lockstep/hash/snapshot_file.h>
#include <lockstep/hash/state_hash.h>
#include <lockstep/world.h>

#include "canonical.h"

#include <cereal/archives/portable_binary.hpp>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstring>
#include <exception>
#include <istream>
#include <ostream>
#include <streambuf>
#include <utility>

namespace lockstep {
namespace {

using hash_detail::encode_rows_canonical;
using hash_detail::fields_tile;
using hash_detail::kLittleHost;

constexpr std::uint32_t kMaxNameLength = 255;
constexpr std::uint32_t kMaxFields = 256;
constexpr std::uint64_t kChecksumBytes = 8;
// endianness flag + magic + version + flags
constexpr std::uint64_t kPreambleBytes = 1 + 8 + 4 + 4;

std::string at(std::string_view file, std::uint64_t offset) {
  std::string s(file);
  s += ": byte ";
  s += std::to_string(offset);
  s += ": ";
  return s;
}

FileStatus fail(ErrorCode code, std::string_view file, std::uint64_t offset, const std::string& what) {
  FileStatus st;
  st.code = code;
  st.offset = offset;
  st.message = at(file, offset) + what;
  return st;
}

// ---- output --------------------------------------------------------------------------


using OutArchive = cereal::PortableBinaryOutputArchive;

void put_raw(OutArchive& ar, const void* p, std::size_t n) {
  if (n != 0) ar(cereal::binary_data(static_cast<const std::uint8_t*>(p), n));
}
void put_u32s(OutArchive& ar, std::span<const std::uint32_t> v) {
  // Element size 4: cereal writes each element little-endian (swapping on big-endian hosts).
  if (!v.empty()) ar(cereal::binary_data(v.data(), v.size() * 4));
}
void put_str(OutArchive& ar, const char* s) {
  const std::size_t n = std::strlen(s);
  ar(static_cast<std::uint32_t>(n));
  put_raw(ar, s, n);
}
void put_type(OutArchive& ar, const TypeDescriptor& d) {
  put_str(ar, d.name);
  ar(d.size, d.field_count);
  for (std::uint32_t f = 0; f < d.field_count; ++f) {
    const FieldDescriptor& fd = d.fields[f];
    put_str(ar, fd.name);
    ar(fd.offset, fd.element_size, fd.count, static_cast<std::uint8_t>(fd.kind));
  }
}
void put_values(OutArchive& ar, const TypeDescriptor& d, const std::byte* data, std::uint64_t rows) {
  if (rows == 0) return;
  if (kLittleHost) {
    put_raw(ar, data, static_cast<std::size_t>(rows * d.size));
  } else {
    encode_rows_canonical(d, data, rows, [&ar](const std::byte* p, std::size_t n) { put_raw(ar, p, n); });
  }
}

std::uint64_t encoded_type_size(const TypeDescriptor& d) noexcept {
  std::uint64_t n = 4 + std::strlen(d.name) + 4 + 4;
  for (std::uint32_t f = 0; f < d.field_count; ++f) n += 4 + std::strlen(d.fields[f].name) + 4 + 2 + 2 + 1;
  return n;
}

// ---- input ---------------------------------------------------------------------------


using InArchive = cereal::PortableBinaryInputArchive;

class Reader {
 public:
  Reader(hash::ByteSpanSource& src, InArchive& ar, std::string_view file) : src_(src), ar_(ar), file_(file) {}

  bool ok() const noexcept { return status_.ok(); }
  FileStatus& status() noexcept { return status_; }
  std::uint64_t pos() const noexcept { return src_.pos(); }
  std::uint64_t remaining() const noexcept { return src_.remaining(); }

  bool error(ErrorCode code, const std::string& what) {
    return error_at(code, src_.pos(), what);
  }
  bool error_at(ErrorCode code, std::uint64_t offset, const std::string& what) {
    if (status_.ok()) status_ = fail(code, file_, offset, what);
    return false;
  }
  bool need(std::uint64_t n, const char* what) {
    if (!ok()) return false;
    if (n > src_.remaining())
      return error(ErrorCode::Corrupt, std::string("truncated: ") + what + " needs " + std::to_string(n) +
                                           " bytes, " + std::to_string(src_.remaining()) + " remain");
    return true;
  }
  template <class T>
  bool num(T& v, const char* what) {
    if (!need(sizeof(T), what)) return false;
    ar_(v);
    return true;
  }
  // Raw bytes (no swapping).
  bool raw(void* dst, std::uint64_t n, const char* what) {
    if (!need(n, what)) return false;
    if (n != 0) ar_(cereal::binary_data(static_cast<std::uint8_t*>(dst), static_cast<std::size_t>(n)));
    return true;
  }
  // Little-endian uint32 array of `count` elements; count already bounded by the caller.
  bool u32s(std::vector<std::uint32_t>& v, std::uint64_t count, const char* what) {
    if (!need(count * 4, what)) return false;
    v.resize(static_cast<std::size_t>(count));
    if (count != 0) ar_(cereal::binary_data(v.data(), static_cast<std::size_t>(count * 4)));
    return true;
  }
  bool str(std::string& s, const char* what) {
    const std::uint64_t start = pos();
    std::uint32_t n = 0;
    if (!num(n, what)) return false;
    if (n > kMaxNameLength)
      return error_at(ErrorCode::Corrupt, start,
                      std::string(what) + " length " + std::to_string(n) + " exceeds " + std::to_string(kMaxNameLength));
    if (!need(n, what)) return false;
    s.resize(n);
    if (!raw(s.data(), n, what)) return false;
    if (s.find('\0') != std::string::npos)
      return error_at(ErrorCode::Corrupt, start, std::string(what) + " contains a NUL byte");
    return true;
  }

 private:
  hash::ByteSpanSource& src_;
  InArchive& ar_;
  std::string_view file_;
  FileStatus status_;
};

struct FileField {
  std::string name;
  std::uint32_t offset = 0;
  std::uint16_t element_size = 0;
  std::uint16_t count = 0;
  std::uint8_t kind = 0;
};
struct FileType {
  std::string name;
  std::uint32_t size = 0;
  std::vector<FileField> fields;
  std::uint64_t at = 0;  // file offset of the entry
  std::int32_t target = -1;
};

bool read_type(Reader& r, FileType& t, const char* what) {
  t.at = r.pos();
  std::uint32_t field_count = 0;
  if (!r.str(t.name, what) || !r.num(t.size, what) || !r.num(field_count, what)) return false;
  if (field_count > kMaxFields)
    return r.error(ErrorCode::Corrupt, std::string(what) + " '" + t.name + "' declares " +
                                           std::to_string(field_count) + " fields (limit " +
                                           std::to_string(kMaxFields) + ")");
  // Each field takes at least 4 + 0 + 9 bytes.
  if (!r.need(std::uint64_t{field_count} * 13, "field list")) return false;
  t.fields.resize(field_count);
  for (FileField& f : t.fields) {
    if (!r.str(f.name, "field name") || !r.num(f.offset, "field offset") ||
        !r.num(f.element_size, "field element size") || !r.num(f.count, "field count") ||
        !r.num(f.kind, "field kind"))
      return false;
  }
  return true;
}

// Schema equality of a file type and the target's descriptor; Mismatch names what differs.
bool check_type(Reader& r, const FileType& t, const TypeDescriptor& d, const char* kind) {
  const std::string who = std::string(kind) + " '" + t.name + "'";
  if (t.size != d.size)
    return r.error_at(ErrorCode::Mismatch, t.at,
                      who + ": size " + std::to_string(t.size) + " in file, " + std::to_string(d.size) + " in world");
  if (!fields_tile(d))
    return r.error_at(ErrorCode::Mismatch, t.at, who + ": fields do not tile the type in the world");
  const std::size_t n = std::max<std::size_t>(t.fields.size(), d.field_count);
  for (std::size_t i = 0; i < n; ++i) {
    if (i >= t.fields.size())
      return r.error_at(ErrorCode::Mismatch, t.at, who + ": field '" + d.fields[i].name + "' missing from file");
    const FileField& f = t.fields[i];
    if (i >= d.field_count)
      return r.error_at(ErrorCode::Mismatch, t.at, who + ": field '" + f.name + "' not in the world's type");
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
    if (!what.empty()) return r.error_at(ErrorCode::Mismatch, t.at, who + ": " + what);
  }
  return true;
}

// Reads a schema table and maps it onto the target's ids by name.
bool read_schema(Reader& r, std::vector<FileType>& types, std::uint32_t target_count, bool components,
                 const World& world) {
  const char* kind = components ? "component" : "resource";
  const std::uint64_t start = r.pos();
  std::uint32_t count = 0;
  if (!r.num(count, components ? "component count" : "resource count")) return false;
  if (count != target_count)
    return r.error_at(ErrorCode::Mismatch, start,
                      std::string(kind) + " count " + std::to_string(count) + " in file, " +
                          std::to_string(target_count) + " registered in the world");
  types.resize(count);
  const StorageView view = world.storage();
  std::vector<bool> seen(target_count, false);
  for (FileType& t : types) {
    if (!read_type(r, t, kind)) return false;
    const std::int32_t id = components ? world.componentIdByName(t.name.c_str()) : world.resourceIdByName(t.name.c_str());
    if (id < 0 || static_cast<std::uint32_t>(id) >= target_count)
      return r.error_at(ErrorCode::Mismatch, t.at,
                        std::string(kind) + " '" + t.name + "' in file is not registered in the world");
    if (seen[static_cast<std::size_t>(id)])
      return r.error_at(ErrorCode::Corrupt, t.at, std::string(kind) + " '" + t.name + "' appears twice in file");
    seen[static_cast<std::size_t>(id)] = true;
    t.target = id;
    const TypeDescriptor& d = components ? view.component(static_cast<std::uint32_t>(id))
                                         : view.resource(static_cast<std::uint32_t>(id));
    if (!check_type(r, t, d, kind)) return false;
  }
  return true;
}

bool read_state(Reader& r, const World& world, const std::vector<FileType>& comps,
                const std::vector<FileType>& res, SnapshotParts& out) {
  const WorldConfig& cfg = world.config();
  if (!r.num(out.tick, "tick")) return false;

  std::uint64_t at = r.pos();
  std::uint32_t slots = 0;
  if (!r.num(slots, "slot count")) return false;
  if (slots > cfg.max_entities)
    return r.error_at(ErrorCode::CapacityExceeded, at,
                      "slot count " + std::to_string(slots) + " exceeds the world's max_entities " +
                          std::to_string(cfg.max_entities));
  if (!r.u32s(out.generations, slots, "generations")) return false;
  at = r.pos();
  if (!r.need(slots, "liveness")) return false;
  out.alive.resize(slots);
  if (!r.raw(out.alive.data(), slots, "liveness")) return false;
  for (std::uint32_t i = 0; i < slots; ++i)
    if (out.alive[i] > 1)
      return r.error_at(ErrorCode::Corrupt, at + i, "liveness byte of slot " + std::to_string(i) + " is " +
                                                        std::to_string(out.alive[i]) + " (must be 0 or 1)");
  at = r.pos();
  std::uint32_t free_count = 0;
  if (!r.num(free_count, "free-slot count")) return false;
  if (free_count > slots)
    return r.error_at(ErrorCode::Corrupt, at,
                      "free-slot count " + std::to_string(free_count) + " exceeds slot count " + std::to_string(slots));
  if (!r.u32s(out.free_slots, free_count, "free slots")) return false;

  at = r.pos();
  std::uint32_t archetypes = 0;
  if (!r.num(archetypes, "archetype count")) return false;
  const std::uint32_t max_arch = std::min<std::uint32_t>(cfg.max_archetypes, WorldConfig::kMaxArchetypesLimit);
  if (archetypes > max_arch)
    return r.error_at(ErrorCode::CapacityExceeded, at,
                      "archetype count " + std::to_string(archetypes) + " exceeds the world's max_archetypes " +
                          std::to_string(max_arch));
  if (archetypes == 0) return r.error_at(ErrorCode::Corrupt, at, "archetype count is 0 (archetype 0 always exists)");
  if (!r.need(std::uint64_t{archetypes} * 8, "archetype table")) return false;
  out.archetypes.resize(archetypes);
  for (std::uint32_t a = 0; a < archetypes; ++a) {
    SnapshotParts::ArchetypePart& part = out.archetypes[a];
    const std::string who = "archetype " + std::to_string(a);
    at = r.pos();
    std::uint32_t k = 0;
    if (!r.num(k, "archetype column count")) return false;
    if (k > detail::kMaxColumns || k > comps.size())
      return r.error_at(ErrorCode::Corrupt, at, who + ": " + std::to_string(k) + " columns");
    if (a == 0 && k != 0) return r.error_at(ErrorCode::Corrupt, at, "archetype 0 must have no components");
    at = r.pos();
    std::array<std::uint8_t, detail::kMaxColumns> file_ids{};
    if (!r.raw(file_ids.data(), k, "archetype component ids")) return false;
    std::uint64_t row_size = 4;
    for (std::uint32_t i = 0; i < k; ++i) {
      if (file_ids[i] >= comps.size() || (i > 0 && file_ids[i] <= file_ids[i - 1]))
        return r.error_at(ErrorCode::Corrupt, at + i, who + ": component ids must be ascending file ids below " +
                                                          std::to_string(comps.size()));
      row_size += comps[file_ids[i]].size;
    }
    at = r.pos();
    std::uint32_t rows = 0;
    if (!r.num(rows, "archetype row count")) return false;
    if (rows > slots)
      return r.error_at(ErrorCode::Corrupt, at,
                        who + ": " + std::to_string(rows) + " rows but only " + std::to_string(slots) + " slots");
    if (!r.need(std::uint64_t{rows} * row_size, "archetype rows")) return false;
    if (!r.u32s(part.slots, rows, "archetype slot ids")) return false;
    // Target ids, re-sorted ascending; file column i lands at position order[i].
    std::array<std::uint32_t, detail::kMaxColumns> order{};
    std::array<std::uint8_t, detail::kMaxColumns> target_ids{};
    for (std::uint32_t i = 0; i < k; ++i) target_ids[i] = static_cast<std::uint8_t>(comps[file_ids[i]].target);
    std::sort(target_ids.begin(), target_ids.begin() + k);
    for (std::uint32_t i = 0; i < k; ++i) {
      const auto t = static_cast<std::uint8_t>(comps[file_ids[i]].target);
      order[i] = static_cast<std::uint32_t>(std::find(target_ids.begin(), target_ids.begin() + k, t) - target_ids.begin());
    }
    part.component_ids.assign(target_ids.begin(), target_ids.begin() + k);
    part.columns.assign(k, {});
    const StorageView view = world.storage();
    for (std::uint32_t i = 0; i < k; ++i) {
      const FileType& t = comps[file_ids[i]];
      const std::uint64_t n = std::uint64_t{rows} * t.size;
      std::vector<std::byte>& col = part.columns[order[i]];
      col.resize(static_cast<std::size_t>(n));
      if (!r.raw(col.data(), n, "column bytes")) return false;
      hash_detail::rows_from_le_inplace(view.component(static_cast<std::uint32_t>(t.target)), col.data(), rows);
    }
  }

  out.resources.assign(res.size(), {});
  const StorageView view = world.storage();
  for (const FileType& t : res) {
    std::vector<std::byte>& bytes = out.resources[static_cast<std::size_t>(t.target)];
    bytes.resize(t.size);
    if (!r.raw(bytes.data(), t.size, "resource bytes")) return false;
    hash_detail::rows_from_le_inplace(view.resource(static_cast<std::uint32_t>(t.target)), bytes.data(), 1);
  }
  if (r.remaining() != 0)
    return r.error(ErrorCode::Corrupt, std::to_string(r.remaining()) + " unexpected bytes before the checksum");
  return true;
}

FileStatus from_kernel(const Status& st, std::string_view file, const char* stage) {
  FileStatus out;
  out.code = st.code();
  out.message = std::string(file) + ": " + stage + ": " + to_string(st.code()) + ": " +
                (st.message() != nullptr ? st.message() : "");
  return out;
}

}  // namespace

// ---- public ------------------------------------------------------------------------------

FileStatus encode_snapshot(const StorageView& state, std::vector<std::byte>& out) {
  out.clear();
  for (std::uint32_t c = 0; c < state.component_count(); ++c)
    if (!fields_tile(state.component(c)))
      return fail(ErrorCode::InvalidArgument, "<encode>", 0,
                  std::string("component '") + state.component(c).name + "': fields do not tile the type");
  for (std::uint32_t r = 0; r < state.resource_count(); ++r)
    if (!fields_tile(state.resource(r)))
      return fail(ErrorCode::InvalidArgument, "<encode>", 0,
                  std::string("resource '") + state.resource(r).name + "': fields do not tile the type");
  // Format 1 has no place for row state; refusing beats silently dropping it on a round trip.
  if (state.disabled_count() != 0 || !state.tracked_components().empty())
    return fail(ErrorCode::InvalidArgument, "<encode>", 0,
                "snapshot files (format 1) do not carry enable bits or change ticks; this world has " +
                    std::to_string(state.disabled_count()) + " disabled component(s) and " +
                    std::to_string(state.tracked_components().size()) + " change-tracked component(s)");
  try {
    hash::ByteVectorSink sink(out);
    std::ostream os(&sink);
    {
      OutArchive ar(os, OutArchive::Options::LittleEndian());
      put_raw(ar, kSnapshotFileMagic, sizeof(kSnapshotFileMagic));
      ar(kSnapshotFileVersion, std::uint32_t{0});
      // schema
      ar(state.component_count());
      for (std::uint32_t c = 0; c < state.component_count(); ++c) put_type(ar, state.component(c));
      ar(state.resource_count());
      for (std::uint32_t r = 0; r < state.resource_count(); ++r) put_type(ar, state.resource(r));
      // state
      ar(state.tick());
      const std::uint32_t slots = state.slot_count();
      ar(slots);
      put_u32s(ar, state.generations().first(slots));
      put_raw(ar, state.alive().data(), slots);
      const auto free_slots = state.free_slots();
      ar(static_cast<std::uint32_t>(free_slots.size()));
      put_u32s(ar, free_slots);
      ar(state.archetype_count());
      for (std::uint32_t a = 0; a < state.archetype_count(); ++a) {
        const auto comps = state.archetype_components(a);
        const std::uint32_t rows = state.archetype_rows(a);
        ar(static_cast<std::uint32_t>(comps.size()));
        put_raw(ar, comps.data(), comps.size());
        ar(rows);
        put_u32s(ar, state.archetype_slots(a).first(rows));
        for (std::uint32_t i = 0; i < comps.size(); ++i)
          put_values(ar, state.component(comps[i]), state.column_bytes(a, i).data(), rows);
      }
      for (std::uint32_t r = 0; r < state.resource_count(); ++r)
        put_values(ar, state.resource(r), state.resource_bytes(r).data(), 1);
    }
  } catch (const std::exception& e) {
    return fail(ErrorCode::IoError, "<encode>", out.size(), std::string("serialisation failed: ") + e.what());
  }
  std::byte sum[kChecksumBytes];
  hash_detail::put_u64(sum, xxh3_64(out));
  out.insert(out.end(), sum, sum + kChecksumBytes);
  return FileStatus::Ok();
}

FileStatus write_snapshot_file(const std::string& path, const StorageView& state) {
  std::vector<std::byte> bytes;
  FileStatus st = encode_snapshot(state, bytes);
  if (!st.ok()) {
    st.message = path + ": " + st.message;
    return st;
  }
  hash::WriteFailure failure;
  if (!hash::write_file_atomically(path, bytes.data(), bytes.size(), failure))
    return fail(ErrorCode::IoError, failure.failed_path, failure.written, failure.what);
  return FileStatus::Ok();
}

FileStatus write_snapshot_file(const std::string& path, const World& world) {
  return write_snapshot_file(path, world.storage());
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
  return n;
}

FileStatus decode_snapshot(std::span<const std::byte> bytes, const World& target, SnapshotParts& out,
                           std::string_view name) {
  out = SnapshotParts{};
  const std::uint64_t size = bytes.size();
  const std::uint64_t bound = max_snapshot_file_size(target);
  if (size > bound)
    return fail(ErrorCode::CapacityExceeded, name, 0,
                "file is " + std::to_string(size) + " bytes, more than the " + std::to_string(bound) +
                    " bytes any state of the target world can take");
  if (size < kPreambleBytes + kChecksumBytes)
    return fail(ErrorCode::Corrupt, name, size, "truncated: " + std::to_string(size) + " bytes is shorter than the " +
                                                    std::to_string(kPreambleBytes + kChecksumBytes) +
                                                    "-byte header and checksum");
  if (std::to_integer<std::uint8_t>(bytes[0]) != 1)
    return fail(ErrorCode::Corrupt, name, 0, "not a little-endian lockstep snapshot (endianness flag " +
                                                 std::to_string(std::to_integer<unsigned>(bytes[0])) + ")");
  if (std::memcmp(bytes.data() + 1, kSnapshotFileMagic, sizeof(kSnapshotFileMagic)) != 0)
    return fail(ErrorCode::Corrupt, name, 1, "bad magic: not a lockstep snapshot file");
  // Every format version ends with this checksum, so it is checked before the version.
  const std::uint64_t body = size - kChecksumBytes;
  std::uint64_t stored = 0;
  for (int i = 0; i < 8; ++i) stored |= std::to_integer<std::uint64_t>(bytes[body + i]) << (8 * i);
  const std::uint64_t actual = xxh3_64(bytes.first(body));
  if (stored != actual)
    return fail(ErrorCode::Corrupt, name, body,
                "checksum mismatch (stored " + to_hex(stored) + ", computed " + to_hex(actual) +
                    "): the file is truncated or corrupted");
  std::uint32_t version = 0;
  for (int i = 0; i < 4; ++i) version |= std::to_integer<std::uint32_t>(bytes[9 + i]) << (8 * i);
  if (version != kSnapshotFileVersion)
    return fail(ErrorCode::Mismatch, name, 9, "format version " + std::to_string(version) + ", this build reads " +
                                                  std::to_string(kSnapshotFileVersion));

  try {
    hash::ByteSpanSource src(bytes.data(), body);
    std::istream is(&src);
    // Options::Default(): the input option names the byte order to load *into* (the host's);
    // the file's own order comes from the flag byte. LittleEndian() here would byte-swap every
    // value on a big-endian host (found on s390x). The flag byte was checked to be 1 above.
    InArchive ar(is, InArchive::Options::Default());  // consumes the endianness flag
    Reader r(src, ar, name);
    std::array<char, 8> magic{};
    std::uint32_t flags = 0;
    if (!r.raw(magic.data(), 8, "magic") || !r.num(version, "version")) return std::move(r.status());
    const std::uint64_t flags_at = r.pos();
    if (!r.num(flags, "flags")) return std::move(r.status());
    if (flags != 0) {
      r.error_at(ErrorCode::Mismatch, flags_at, "unknown flags " + std::to_string(flags));
      return std::move(r.status());
    }
    const StorageView view = target.storage();
    std::vector<FileType> comps, res;
    if (!read_schema(r, comps, view.component_count(), true, target) ||
        !read_schema(r, res, view.resource_count(), false, target) || !read_state(r, target, comps, res, out)) {
      out = SnapshotParts{};
      return std::move(r.status());
    }
  } catch (const std::exception& e) {
    out = SnapshotParts{};
    return fail(ErrorCode::Corrupt, name, 0, std::string("decode failed: ") + e.what());
  }
  return FileStatus::Ok();
}

namespace {
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

FileStatus read_snapshot_file(const std::string& path, const World& target, SnapshotParts& out) {
  std::vector<std::byte> bytes;
  FileStatus st = read_all(path, target, bytes);
  if (!st.ok()) return st;
  return decode_snapshot(bytes, target, out, path);
}

FileStatus load_snapshot_bytes(std::span<const std::byte> bytes, World& world, Snapshot& scratch,
                               std::string_view name) {
  SnapshotParts parts;
  FileStatus st = decode_snapshot(bytes, world, parts, name);
  if (!st.ok()) return st;
  const Status a = scratch.assign(world, parts);
  if (!a.ok()) return from_kernel(a, name, "Snapshot::assign rejected the file's state");
  const Status l = world.load(scratch);
  if (!l.ok()) return from_kernel(l, name, "World::load rejected the file's state");
  return FileStatus::Ok();
}

FileStatus load_snapshot_file(const std::string& path, World& world, Snapshot& scratch) {
  std::vector<std::byte> bytes;
  FileStatus st = read_all(path, world, bytes);
  if (!st.ok()) return st;
  return load_snapshot_bytes(bytes, world, scratch, path);
}

}  // namespace lockstep
