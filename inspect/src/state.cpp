// inspect::State: capture, snapshot-file decoding without a World, value formatting.
#include <lockstep/fixed.h>
#include <lockstep/hash/state_hash.h>
#include <lockstep/inspect/state.h>

#include "reader.h"

#include <cstdio>
#include <cstring>
#include <exception>
#include <istream>

namespace lockstep::inspect {

using detail::Reader;

const Field* Type::field(std::string_view n) const noexcept {
  for (const Field& f : fields)
    if (f.name == n) return &f;
  return nullptr;
}

bool Type::same_layout(const Type& o) const noexcept { return size == o.size && fields == o.fields; }

std::uint64_t State::live_entities() const noexcept {
  std::uint64_t n = 0;
  for (std::uint8_t a : alive) n += a;
  return n;
}

std::int32_t State::component_id(std::string_view n) const noexcept {
  for (std::size_t i = 0; i < components.size(); ++i)
    if (components[i].name == n) return static_cast<std::int32_t>(i);
  return -1;
}

std::int32_t State::resource_id(std::string_view n) const noexcept {
  for (std::size_t i = 0; i < resources.size(); ++i)
    if (resources[i].name == n) return static_cast<std::int32_t>(i);
  return -1;
}

std::vector<State::Location> State::locate() const {
  std::vector<Location> loc(generations.size(), Location{kNoArchetype, 0});
  for (std::uint32_t a = 0; a < archetypes.size(); ++a) {
    const auto& slots = archetypes[a].slots;
    for (std::uint32_t r = 0; r < slots.size(); ++r)
      if (slots[r] < loc.size()) loc[slots[r]] = Location{a, r};
  }
  return loc;
}

std::span<const std::byte> State::value(std::uint32_t a, std::uint32_t row, std::uint32_t c) const noexcept {
  if (a >= archetypes.size() || c >= components.size()) return {};
  const Archetype& arch = archetypes[a];
  for (std::size_t i = 0; i < arch.components.size(); ++i) {
    if (arch.components[i] != c) continue;
    const std::uint32_t size = components[c].size;
    const std::vector<std::byte>& col = arch.columns[i];
    if (std::uint64_t{row + 1} * size > col.size()) return {};
    return {col.data() + std::size_t{row} * size, size};
  }
  return {};
}

State capture(const StorageView& view) {
  std::vector<std::byte> bytes;
  State s;
  if (!encode_snapshot(view, bytes).ok()) return s;  // only for types whose fields do not tile
  (void)decode_state(bytes, s, "<capture>");
  return s;
}

namespace {

constexpr std::uint32_t kMaxName = 255;
constexpr std::uint32_t kMaxFields = 256;
constexpr std::uint64_t kChecksum = 8;
constexpr std::uint64_t kPreamble = 1 + 8 + 4 + 4;

bool read_type(Reader& r, Type& t, const char* what) {
  const std::uint64_t at = r.pos();
  std::uint32_t field_count = 0;
  if (!r.str(t.name, kMaxName, what) || !r.num(t.size, "type size") || !r.num(field_count, "field count")) return false;
  if (field_count > kMaxFields)
    return r.error_at(ErrorCode::Corrupt, at, std::string(what) + " '" + t.name + "': expected at most " +
                                                  std::to_string(kMaxFields) + " fields, found " + std::to_string(field_count));
  if (!r.need(std::uint64_t{field_count} * 13, "field list")) return false;
  t.fields.resize(field_count);
  std::uint64_t end = 0;
  for (Field& f : t.fields) {
    const std::uint64_t fat = r.pos();
    std::uint8_t kind = 0;
    if (!r.str(f.name, kMaxName, "field name") || !r.num(f.offset, "field offset") ||
        !r.num(f.element_size, "field element size") || !r.num(f.count, "field count") || !r.num(kind, "field kind"))
      return false;
    if (kind < 1 || kind > 5)
      return r.error_at(ErrorCode::Corrupt, fat, "field '" + f.name + "': expected a field kind 1..5, found " + std::to_string(kind));
    f.kind = static_cast<FieldKind>(kind);
    const bool es_ok = f.element_size == 1 || f.element_size == 2 || f.element_size == 4 || f.element_size == 8;
    if (!es_ok || f.offset != end || (f.kind == FieldKind::Entity && (f.element_size != 4 || f.count % 2 != 0)))
      return r.error_at(ErrorCode::Corrupt, fat, std::string(what) + " '" + t.name + "' field '" + f.name +
                                                     "': expected fields that tile the type in order with element size 1, 2, 4 or 8");
    end += f.size();
  }
  if (end != t.size)
    return r.error_at(ErrorCode::Corrupt, at, std::string(what) + " '" + t.name + "': fields cover " + std::to_string(end) +
                                                  " bytes, expected the type size " + std::to_string(t.size));
  return true;
}

bool read_types(Reader& r, std::vector<Type>& out, const char* what, const char* count_what) {
  std::uint32_t n = 0;
  const std::uint64_t at = r.pos();
  if (!r.num(n, count_what)) return false;
  if (n > 256) return r.error_at(ErrorCode::Corrupt, at, std::string("expected at most 256 ") + what + "s, found " + std::to_string(n));
  if (!r.need(std::uint64_t{n} * 12, count_what)) return false;
  out.resize(n);
  for (Type& t : out)
    if (!read_type(r, t, what)) return false;
  return true;
}

bool read_body(Reader& r, State& s) {
  if (!read_types(r, s.components, "component", "component count") ||
      !read_types(r, s.resources, "resource", "resource count") || !r.num(s.tick, "tick"))
    return false;
  std::uint64_t at = r.pos();
  std::uint32_t slots = 0;
  if (!r.num(slots, "slot count") || !r.need(std::uint64_t{slots} * 5, "entity table")) return false;
  if (!r.u32s(s.generations, slots, "generations")) return false;
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
  if (!r.u32s(s.free_slots, free_count, "free slots")) return false;
  at = r.pos();
  std::uint32_t archetypes = 0;
  if (!r.num(archetypes, "archetype count")) return false;
  if (archetypes == 0 || archetypes > 256)
    return r.error_at(ErrorCode::Corrupt, at, "expected 1..256 archetypes, found " + std::to_string(archetypes));
  if (!r.need(std::uint64_t{archetypes} * 8, "archetype table")) return false;
  s.archetypes.resize(archetypes);
  const std::uint32_t ncomp = static_cast<std::uint32_t>(s.components.size());
  for (std::uint32_t a = 0; a < archetypes; ++a) {
    Archetype& arch = s.archetypes[a];
    at = r.pos();
    std::uint32_t k = 0;
    if (!r.num(k, "archetype column count")) return false;
    if (k > 32 || k > ncomp || (a == 0 && k != 0))
      return r.error_at(ErrorCode::Corrupt, at, "archetype " + std::to_string(a) + ": expected at most " +
                                                    std::to_string(a == 0 ? 0 : std::min<std::uint32_t>(32, ncomp)) +
                                                    " columns, found " + std::to_string(k));
    at = r.pos();
    std::uint8_t ids[32] = {};
    if (!r.raw(ids, k, "archetype component ids")) return false;
    std::uint64_t row_size = 4;
    arch.components.resize(k);
    for (std::uint32_t i = 0; i < k; ++i) {
      if (ids[i] >= ncomp || (i > 0 && ids[i] <= ids[i - 1]))
        return r.error_at(ErrorCode::Corrupt, at + i, "archetype " + std::to_string(a) +
                                                          ": expected ascending component ids below " + std::to_string(ncomp));
      arch.components[i] = ids[i];
      row_size += s.components[ids[i]].size;
    }
    at = r.pos();
    std::uint32_t rows = 0;
    if (!r.num(rows, "archetype row count")) return false;
    if (rows > slots)
      return r.error_at(ErrorCode::Corrupt, at, "archetype " + std::to_string(a) + ": expected at most " +
                                                    std::to_string(slots) + " rows, found " + std::to_string(rows));
    if (!r.need(std::uint64_t{rows} * row_size, "archetype rows")) return false;
    at = r.pos();
    if (!r.u32s(arch.slots, rows, "archetype slot ids")) return false;
    for (std::uint32_t i = 0; i < rows; ++i)
      if (arch.slots[i] >= slots || (i > 0 && arch.slots[i] <= arch.slots[i - 1]) || s.alive[arch.slots[i]] == 0)
        return r.error_at(ErrorCode::Corrupt, at + 4ull * i, "archetype " + std::to_string(a) +
                                                                 ": expected ascending ids of live slots");
    arch.columns.resize(k);
    for (std::uint32_t i = 0; i < k; ++i)
      if (!r.bytes(arch.columns[i], std::uint64_t{rows} * s.components[ids[i]].size, "column bytes")) return false;
  }
  s.resource_values.resize(s.resources.size());
  for (std::size_t i = 0; i < s.resources.size(); ++i)
    if (!r.bytes(s.resource_values[i], s.resources[i].size, "resource bytes")) return false;
  if (r.remaining() != 0)
    return r.error(ErrorCode::Corrupt, "expected the checksum, found " + std::to_string(r.remaining()) + " more bytes");
  return true;
}

}  // namespace

FileStatus decode_state(std::span<const std::byte> bytes, State& out, std::string_view name, bool verify_checksum) {
  out = State{};
  auto fail = [&](ErrorCode code, std::uint64_t offset, const std::string& what) {
    return detail::file_error(name, code, offset, what);
  };
  const std::uint64_t size = bytes.size();
  if (size < kPreamble + kChecksum)
    return fail(ErrorCode::Corrupt, size, "truncated: expected at least " + std::to_string(kPreamble + kChecksum) +
                                              " bytes (snapshot header and checksum), file has " + std::to_string(size));
  if (std::to_integer<unsigned>(bytes[0]) != 1)
    return fail(ErrorCode::Corrupt, 0, "expected the little-endian flag 1, found " + std::to_string(std::to_integer<unsigned>(bytes[0])));
  if (std::memcmp(bytes.data() + 1, kSnapshotFileMagic, sizeof kSnapshotFileMagic) != 0)
    return fail(ErrorCode::Corrupt, 1, "expected the snapshot magic \"LSSNAP\\r\\n\"");
  const std::uint64_t body = size - kChecksum;
  const std::uint64_t stored = detail::load_le64(bytes.data() + body);
  const std::uint64_t actual = xxh3_64(bytes.first(body));
  if (verify_checksum && stored != actual)
    return fail(ErrorCode::Corrupt, body, "expected checksum " + to_hex(actual) + " of the preceding bytes, stored " +
                                              to_hex(stored) + " (truncated or corrupted)");
  try {
    hash::ByteSpanSource src(bytes.data(), body);
    std::istream is(&src);
    cereal::PortableBinaryInputArchive ar(is, cereal::PortableBinaryInputArchive::Options::Default());
    Reader r(src, ar, name);
    char magic[8];
    std::uint32_t version = 0, flags = 0;
    if (!r.raw(magic, 8, "magic") || !r.num(version, "format version")) return std::move(r.status());
    if (version != kSnapshotFileVersion) {
      r.error_at(ErrorCode::Mismatch, 9, "expected snapshot format version " + std::to_string(kSnapshotFileVersion) +
                                             ", found " + std::to_string(version));
      return std::move(r.status());
    }
    if (!r.num(flags, "flags")) return std::move(r.status());
    if (flags != 0) {
      r.error_at(ErrorCode::Mismatch, 13, "expected flags 0, found " + std::to_string(flags));
      return std::move(r.status());
    }
    if (!read_body(r, out)) {
      out = State{};
      return std::move(r.status());
    }
  } catch (const std::exception& e) {
    out = State{};
    return fail(ErrorCode::Corrupt, 0, std::string("decode failed: ") + e.what());
  }
  return FileStatus::Ok();
}

FileStatus read_file_bytes(const std::string& path, std::vector<std::byte>& out, std::uint64_t max_bytes) {
  FileStatus st;
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) {
    st.code = ErrorCode::IoError;
    st.message = path + ": cannot open for reading";
    return st;
  }
  struct Closer {
    std::FILE* f;
    ~Closer() { std::fclose(f); }
  } closer{f};
  out.clear();
  std::byte buf[65536];
  for (;;) {
    const std::size_t n = std::fread(buf, 1, sizeof buf, f);
    if (n == 0) break;
    if (out.size() + n > max_bytes) {
      st.code = ErrorCode::CapacityExceeded;
      st.offset = max_bytes;
      st.message = path + ": byte " + std::to_string(max_bytes) + ": expected at most " + std::to_string(max_bytes) +
                   " bytes, the file is larger";
      return st;
    }
    out.insert(out.end(), buf, buf + n);
  }
  if (std::ferror(f) != 0) {
    st.code = ErrorCode::IoError;
    st.offset = out.size();
    st.message = path + ": read error at byte " + std::to_string(out.size());
  }
  return st;
}

FileStatus read_state_file(const std::string& path, State& out) {
  std::vector<std::byte> bytes;
  FileStatus st = read_file_bytes(path, bytes, std::uint64_t{1} << 32);
  if (!st.ok()) return st;
  return decode_state(bytes, out, path);
}

namespace {
void put32(std::vector<std::byte>& o, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) o.push_back(static_cast<std::byte>((v >> (8 * i)) & 0xFFu));
}
void put64(std::vector<std::byte>& o, std::uint64_t v) {
  for (int i = 0; i < 8; ++i) o.push_back(static_cast<std::byte>((v >> (8 * i)) & 0xFFu));
}
void put_str(std::vector<std::byte>& o, const std::string& s) {
  put32(o, static_cast<std::uint32_t>(s.size()));
  for (char c : s) o.push_back(static_cast<std::byte>(c));
}
void put_type(std::vector<std::byte>& o, const Type& t) {
  put_str(o, t.name);
  put32(o, t.size);
  put32(o, static_cast<std::uint32_t>(t.fields.size()));
  for (const Field& f : t.fields) {
    put_str(o, f.name);
    put32(o, f.offset);
    o.push_back(static_cast<std::byte>(f.element_size & 0xFFu));
    o.push_back(static_cast<std::byte>(f.element_size >> 8));
    o.push_back(static_cast<std::byte>(f.count & 0xFFu));
    o.push_back(static_cast<std::byte>(f.count >> 8));
    o.push_back(static_cast<std::byte>(f.kind));
  }
}
}  // namespace

// The snapshot-file layout written directly: the values are already canonical bytes, so
// this is byte-for-byte what encode_snapshot (cereal, little-endian) writes.
std::vector<std::byte> encode_state(const State& s) {
  std::vector<std::byte> o;
  o.push_back(std::byte{1});
  for (char c : kSnapshotFileMagic) o.push_back(static_cast<std::byte>(c));
  put32(o, kSnapshotFileVersion);
  put32(o, 0);
  put32(o, static_cast<std::uint32_t>(s.components.size()));
  for (const Type& t : s.components) put_type(o, t);
  put32(o, static_cast<std::uint32_t>(s.resources.size()));
  for (const Type& t : s.resources) put_type(o, t);
  put64(o, s.tick);
  put32(o, s.slot_count());
  for (std::uint32_t g : s.generations) put32(o, g);
  for (std::uint8_t a : s.alive) o.push_back(static_cast<std::byte>(a));
  put32(o, static_cast<std::uint32_t>(s.free_slots.size()));
  for (std::uint32_t f : s.free_slots) put32(o, f);
  put32(o, static_cast<std::uint32_t>(s.archetypes.size()));
  for (const Archetype& a : s.archetypes) {
    put32(o, static_cast<std::uint32_t>(a.components.size()));
    for (std::uint32_t c : a.components) o.push_back(static_cast<std::byte>(c));
    put32(o, static_cast<std::uint32_t>(a.slots.size()));
    for (std::uint32_t sl : a.slots) put32(o, sl);
    for (const auto& col : a.columns) o.insert(o.end(), col.begin(), col.end());
  }
  for (const auto& v : s.resource_values) o.insert(o.end(), v.begin(), v.end());
  put64(o, xxh3_64(o));
  return o;
}

// ---- values -----------------------------------------------------------------------------

std::uint64_t element_bits(const Field& f, const std::byte* value, std::uint32_t k) noexcept {
  const std::byte* p = value + f.offset + std::size_t{k} * f.element_size;
  std::uint64_t v = 0;
  for (std::uint32_t i = 0; i < f.element_size; ++i) v |= std::to_integer<std::uint64_t>(p[i]) << (8 * i);
  return v;
}

namespace {
void append_u64(std::string& out, std::uint64_t v) {
  char buf[24];
  int n = 0;
  do {
    buf[n++] = static_cast<char>('0' + v % 10);
    v /= 10;
  } while (v != 0);
  while (n > 0) out.push_back(buf[--n]);
}
void append_i64(std::string& out, std::int64_t v) {
  if (v < 0) {
    out.push_back('-');
    append_u64(out, std::uint64_t{0} - static_cast<std::uint64_t>(v));
  } else {
    append_u64(out, static_cast<std::uint64_t>(v));
  }
}
}  // namespace

void append_unit(std::string& out, const Field& f, const std::byte* value, std::uint32_t u) {
  const std::uint32_t k = u * f.unit();
  const std::uint64_t bits = element_bits(f, value, k);
  switch (f.kind) {
    case FieldKind::SignedInt: {
      const unsigned width = 8u * f.element_size;
      std::uint64_t x = bits;
      if (width < 64 && ((x >> (width - 1)) & 1u) != 0) x |= ~std::uint64_t{0} << width;
      append_i64(out, static_cast<std::int64_t>(x));
      return;
    }
    case FieldKind::Fixed: {
      char buf[fixed_max_chars];
      out.append(buf, to_chars(fixed::from_raw(static_cast<std::int64_t>(bits)), buf));
      return;
    }
    case FieldKind::Bool:
      out += bits != 0 ? "true" : "false";
      return;
    case FieldKind::Entity:
      append_u64(out, bits);
      out.push_back(':');
      append_u64(out, element_bits(f, value, k + 1));
      return;
    case FieldKind::UnsignedInt:
    default:
      append_u64(out, bits);
      return;
  }
}

void append_field(std::string& out, const Field& f, const std::byte* value) {
  const std::uint32_t n = f.units();
  if (n == 1) {
    append_unit(out, f, value, 0);
    return;
  }
  out.push_back('[');
  for (std::uint32_t u = 0; u < n; ++u) {
    if (u != 0) out += ", ";
    append_unit(out, f, value, u);
  }
  out.push_back(']');
}

std::string field_text(const Field& f, const std::byte* value) {
  std::string s;
  append_field(s, f, value);
  return s;
}

}  // namespace lockstep::inspect
