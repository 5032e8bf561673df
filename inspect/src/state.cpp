// inspect::State: capture, snapshot files through io/'s codec (the one hash/ uses), value formatting.
#include <lockstep/math/fixed.h>
#include <lockstep/hash/state_hash.h>
#include <lockstep/inspect/state.h>

#include <lockstep/io/byte_order.h>
#include <lockstep/io/snapshot_codec.h>

#include <cstdio>
#include <cstring>
#include <exception>
#include <istream>

namespace lockstep::inspect {

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

namespace {

// The codec's image → a State (moves the bytes; both keep values canonical).
State state_of(io::SnapshotImage&& img) {
  State s;
  auto types = [](std::vector<io::SnapshotType>& in, std::vector<Type>& out) {
    out.resize(in.size());
    for (std::size_t i = 0; i < in.size(); ++i) {
      out[i].name = std::move(in[i].name);
      out[i].size = in[i].size;
      out[i].fields.resize(in[i].fields.size());
      for (std::size_t f = 0; f < in[i].fields.size(); ++f) {
        io::SnapshotField& src = in[i].fields[f];
        out[i].fields[f] = Field{std::move(src.name), src.offset, src.element_size, src.count, static_cast<FieldKind>(src.kind)};
      }
    }
  };
  types(img.components, s.components);
  types(img.resources, s.resources);
  s.tick = img.tick;
  s.generations = std::move(img.generations);
  s.alive = std::move(img.alive);
  s.free_slots = std::move(img.free_slots);
  s.archetypes.resize(img.archetypes.size());
  for (std::size_t a = 0; a < img.archetypes.size(); ++a) {
    s.archetypes[a].components = std::move(img.archetypes[a].components);
    s.archetypes[a].slots = std::move(img.archetypes[a].slots);
    s.archetypes[a].columns = std::move(img.archetypes[a].columns);
  }
  s.resource_values = std::move(img.resource_values);
  return s;
}

io::SnapshotImage image_of(const State& s) {
  io::SnapshotImage img;
  auto types = [](const std::vector<Type>& in, std::vector<io::SnapshotType>& out) {
    out.resize(in.size());
    for (std::size_t i = 0; i < in.size(); ++i) {
      out[i].name = in[i].name;
      out[i].size = in[i].size;
      for (const Field& f : in[i].fields)
        out[i].fields.push_back({f.name, f.offset, f.element_size, f.count, static_cast<std::uint8_t>(f.kind)});
    }
  };
  types(s.components, img.components);
  types(s.resources, img.resources);
  img.tick = s.tick;
  img.generations = s.generations;
  img.alive = s.alive;
  img.free_slots = s.free_slots;
  img.archetypes.resize(s.archetypes.size());
  for (std::size_t a = 0; a < s.archetypes.size(); ++a)
    img.archetypes[a] = {s.archetypes[a].components, s.archetypes[a].slots, s.archetypes[a].columns};
  img.resource_values = s.resource_values;
  return img;
}

}  // namespace

State capture(const StorageView& view) {
  io::SnapshotImage img;
  if (!io::snapshot_image_of(view, img).ok()) return State{};  // only for types whose fields do not tile
  return state_of(std::move(img));
}

// The view section of a format-2 file is checked by the decoder and then left out: a State is
// what the hash covers, and views are derived state.
FileStatus decode_state(std::span<const std::byte> bytes, State& out, std::string_view name, bool verify_checksum) {
  out = State{};
  io::SnapshotImage img;
  io::CodecStatus st = io::decode_snapshot_image(bytes, img, name, {}, verify_checksum);
  if (st.ok()) out = state_of(std::move(img));
  FileStatus fs;
  fs.code = st.code;
  fs.message = std::move(st.message);
  fs.offset = st.offset;
  return fs;
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

std::vector<std::byte> encode_state(const State& s) {
  std::vector<std::byte> o;
  io::encode_snapshot_image(image_of(s), o);
  return o;
}

// ---- values -----------------------------------------------------------------------------

std::uint64_t element_bits(const Field& f, const std::byte* value, std::uint32_t k) noexcept {
  return io::get_le(value + f.offset + std::size_t{k} * f.element_size, f.element_size);
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
