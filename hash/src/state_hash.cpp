// Canonical XXH3-64 world hash (docs/hashing.md is the normative byte layout).
#include <lockstep/hash/state_hash.h>
#include <lockstep/store/world.h>

#include "canonical.h"
#include "state_hash_parts.h"
#include "xxh3_wide.h"

#define XXH_INLINE_ALL
#include <xxhash.h>

#include <cstring>

namespace lockstep {
namespace {

using hash_detail::encode_rows_canonical;
using hash_detail::encode_u32s;
using hash_detail::host_bytes_are_canonical;
using hash_detail::put_u32;
using hash_detail::put_u64;

// Tag that opens the `total` fold: "LSH1" + layout version. Bump when docs/hashing.md changes.
constexpr std::uint32_t kTotalTag = 0x3148534Cu;  // bytes 'L' 'S' 'H' '1' little-endian
constexpr std::uint32_t kLayoutVersion = 1;
// Tags opening the optional row-state sections of the `entities` part (docs/hashing.md).
constexpr std::uint32_t kEnableTag = 0x31424E45u;  // "ENB1"
constexpr std::uint32_t kTicksTag = 0x314B4354u;   // "TCK1"

// A streaming XXH3-64 (seed 0) over a canonical byte string. Lives on the stack.
// Long runs (component columns, entity tables) go through XXH3's AVX2 kernel where the CPU has
// one (xxh3_wide.h: the same hash, about twice the throughput); short ones stay inline.
class Stream {
 public:
  Stream() noexcept : wide_(hash_detail::xxh3_wide_available()) {
    XXH3_INITSTATE(&state_);
    (void)XXH3_64bits_reset(&state_);
  }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;

  void bytes(const std::byte* p, std::size_t n) noexcept {
    if (n >= kWideBytes && wide_) {
      hash_detail::xxh3_wide_update(&state_, p, n);
    } else if (n != 0) {
      (void)XXH3_64bits_update(&state_, p, n);
    }
  }
  void u8(std::uint8_t v) noexcept {
    const std::byte b = static_cast<std::byte>(v);
    bytes(&b, 1);
  }
  void u32(std::uint32_t v) noexcept {
    std::byte b[4];
    put_u32(b, v);
    bytes(b, 4);
  }
  void u64(std::uint64_t v) noexcept {
    std::byte b[8];
    put_u64(b, v);
    bytes(b, 8);
  }
  void u32s(std::span<const std::uint32_t> v, bool fast) noexcept {
    encode_u32s(v.data(), v.size(), fast, [this](const std::byte* p, std::size_t n) { bytes(p, n); });
  }
  // `rows` values of type d, host order, as canonical bytes.
  void values(const TypeDescriptor& d, std::span<const std::byte> data, std::uint64_t rows, bool fast) noexcept {
    if (rows == 0) return;
    if (fast && host_bytes_are_canonical(d)) {
      bytes(data.data(), static_cast<std::size_t>(rows * d.size));
    } else {
      encode_rows_canonical(d, data.data(), rows, [this](const std::byte* p, std::size_t n) { bytes(p, n); });
    }
  }
  std::uint64_t digest() const noexcept { return XXH3_64bits_digest(&state_); }

 private:
  static constexpr std::size_t kWideBytes = 1024;
  XXH3_state_t state_;
  bool wide_;
};

// Column index of component c in archetype `comps` (ascending ids), or -1.
int column_of(std::span<const std::uint8_t> comps, std::uint32_t c) noexcept {
  for (std::size_t i = 0; i < comps.size(); ++i) {
    if (comps[i] == c) return static_cast<int>(i);
    if (comps[i] > c) break;
  }
  return -1;
}

}  // namespace

bool operator==(const StateHash& a, const StateHash& b) noexcept {
  if (a.total != b.total || a.tick != b.tick || a.entities != b.entities || a.archetypes != b.archetypes ||
      a.resources != b.resources || a.component_count != b.component_count)
    return false;
  for (std::uint32_t c = 0; c < a.component_count; ++c)
    if (a.components[c] != b.components[c]) return false;
  if (a.resource_count != b.resource_count) return false;
  for (std::uint32_t r = 0; r < a.resource_count; ++r)
    if (a.resource_parts[r] != b.resource_parts[r]) return false;
  return true;
}

namespace hash_detail {

bool xxh3_wide_available() noexcept {
#if defined(LOCKSTEP_XXH3_AVX2) && defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  return __builtin_cpu_supports("avx2");
#else
  return false;
#endif
}

std::uint64_t hash_entities_part(const StorageView& view, bool fast) noexcept {
  Stream s;
  const std::uint32_t slots = view.slot_count();
  s.u32(slots);
  s.u32s(view.generations().first(slots), fast);
  const auto alive = view.alive().first(slots);
  s.bytes(reinterpret_cast<const std::byte*>(alive.data()), alive.size());
  const auto free_slots = view.free_slots();
  s.u32(static_cast<std::uint32_t>(free_slots.size()));
  s.u32s(free_slots, fast);
  // Row state, appended only when present so worlds without it hash as before.
  if (view.disabled_count() != 0) {
    s.u32(kEnableTag);
    s.u64(view.disabled_count());
    const auto bits = view.disabled_bits();
    for (std::uint32_t slot = 0; slot < bits.size(); ++slot) {
      if (bits[slot] == 0) continue;
      s.u32(slot);
      s.u64(bits[slot]);
    }
  }
  const auto tracked = view.tracked_components();
  if (!tracked.empty()) {
    s.u32(kTicksTag);
    s.u32(static_cast<std::uint32_t>(tracked.size()));
    s.bytes(reinterpret_cast<const std::byte*>(tracked.data()), tracked.size());
    for (std::uint32_t i = 0; i < tracked.size(); ++i) {
      for (std::uint32_t a = 0; a < view.archetype_count(); ++a) {
        if (column_of(view.archetype_components(a), tracked[i]) < 0) continue;
        const auto row_slots = view.archetype_slots(a);
        s.u32(a);
        s.u32(static_cast<std::uint32_t>(row_slots.size()));
        for (const std::uint32_t slot : row_slots) {
          s.u64(view.added_tick(slot, i));
          s.u64(view.changed_tick(slot, i));
        }
      }
    }
  }
  return s.digest();
}

std::uint64_t hash_archetypes_part(const StorageView& view, bool fast) noexcept {
  Stream s;
  const std::uint32_t archetype_count = view.archetype_count();
  s.u32(archetype_count);
  for (std::uint32_t a = 0; a < archetype_count; ++a) {
    const auto comps = view.archetype_components(a);
    const std::uint32_t rows = view.archetype_rows(a);
    s.u32(a);
    s.u32(static_cast<std::uint32_t>(comps.size()));
    s.bytes(reinterpret_cast<const std::byte*>(comps.data()), comps.size());
    s.u32(rows);
    s.u32s(view.archetype_slots(a).first(rows), fast);
  }
  return s.digest();
}

std::uint64_t hash_component_part(const StorageView& view, std::uint32_t c, bool fast) noexcept {
  const TypeDescriptor& d = view.component(c);
  Stream s;
  for (std::uint32_t a = 0; a < view.archetype_count(); ++a) {
    const int col = column_of(view.archetype_components(a), c);
    if (col < 0) continue;
    const std::uint32_t rows = view.archetype_rows(a);
    s.u32(a);
    s.u32(rows);
    s.values(d, view.column_bytes(a, static_cast<std::uint32_t>(col)), rows, fast);
  }
  return s.digest();
}

std::uint64_t hash_resource_part(const StorageView& view, std::uint32_t r, bool fast) noexcept {
  const TypeDescriptor& d = view.resource(r);
  Stream one;
  one.u32(r);
  one.u32(d.size);
  one.values(d, view.resource_bytes(r), 1, fast);
  return one.digest();
}

std::uint64_t hash_resources_part(const StorageView& view, bool fast) noexcept {
  Stream s;
  const std::uint32_t n = view.resource_count();
  s.u32(n);
  for (std::uint32_t r = 0; r < n; ++r) {
    const TypeDescriptor& d = view.resource(r);
    s.u32(r);
    s.u32(d.size);
    s.values(d, view.resource_bytes(r), 1, fast);
  }
  return s.digest();
}

std::uint64_t fold_total(const StateHash& h) noexcept {
  Stream s;
  s.u32(kTotalTag);
  s.u32(kLayoutVersion);
  s.u64(h.tick);
  s.u64(h.entities);
  s.u64(h.archetypes);
  s.u64(h.resources);
  s.u32(h.component_count);
  for (std::uint32_t c = 0; c < h.component_count; ++c) s.u64(h.components[c]);
  return s.digest();
}

}  // namespace hash_detail

StateHash hash_storage(const StorageView& view, HashPath path) noexcept {
  const bool fast = path == HashPath::Auto;
  StateHash h;
  h.tick = view.tick();
  h.entities = hash_detail::hash_entities_part(view, fast);
  h.archetypes = hash_detail::hash_archetypes_part(view, fast);
  // Component sub-hashes, component-major so one stream state is live at a time.
  const std::uint32_t component_count =
      view.component_count() < StateHash::kMaxComponents ? view.component_count() : StateHash::kMaxComponents;
  h.component_count = component_count;
  for (std::uint32_t c = 0; c < component_count; ++c) h.components[c] = hash_detail::hash_component_part(view, c, fast);
  const std::uint32_t n = view.resource_count();
  h.resource_count = n < StateHash::kMaxResources ? n : StateHash::kMaxResources;
  h.resources = hash_detail::hash_resources_part(view, fast);
  for (std::uint32_t r = 0; r < h.resource_count; ++r) h.resource_parts[r] = hash_detail::hash_resource_part(view, r, fast);
  h.total = hash_detail::fold_total(h);
  return h;
}

StateHash hash_world(const World& world, HashPath path) noexcept { return hash_storage(world.storage(), path); }

std::uint64_t canonical_byte_count(const StorageView& view) noexcept {
  std::uint64_t n = 0;
  const std::uint64_t slots = view.slot_count();
  n += 4 + slots * 5 + 4 + std::uint64_t{view.free_slots().size()} * 4;  // entities
  if (view.disabled_count() != 0) {
    n += 12;
    for (const std::uint64_t bits : view.disabled_bits()) n += bits != 0 ? 12 : 0;
  }
  const auto tracked = view.tracked_components();
  if (!tracked.empty()) {
    n += 8 + tracked.size();
    for (const std::uint8_t c : tracked)
      for (std::uint32_t a = 0; a < view.archetype_count(); ++a)
        if (column_of(view.archetype_components(a), c) >= 0) n += 8 + std::uint64_t{view.archetype_rows(a)} * 16;
  }
  n += 4;                                                                  // archetype count
  for (std::uint32_t a = 0; a < view.archetype_count(); ++a) {
    const auto comps = view.archetype_components(a);
    const std::uint64_t rows = view.archetype_rows(a);
    n += 4 + 4 + comps.size() + 4 + rows * 4;  // structure
    for (std::uint8_t c : comps) {
      const TypeDescriptor& d = view.component(c);
      std::uint64_t field_bytes = 0;
      for (std::uint32_t f = 0; f < d.field_count; ++f) field_bytes += d.fields[f].size();
      n += 8 + rows * field_bytes;  // component sub-hash
    }
  }
  n += 4;
  for (std::uint32_t r = 0; r < view.resource_count(); ++r) {
    const TypeDescriptor& d = view.resource(r);
    std::uint64_t field_bytes = 0;
    for (std::uint32_t f = 0; f < d.field_count; ++f) field_bytes += d.fields[f].size();
    n += 8 + field_bytes;
  }
  return n;
}

std::uint64_t xxh3_64(std::span<const std::byte> bytes) noexcept {
  // One-shot and streaming XXH3 agree; long inputs take the stream for its AVX2 kernel.
  if (bytes.size() >= 1024 && hash_detail::xxh3_wide_available()) {
    Stream s;
    s.bytes(bytes.data(), bytes.size());
    return s.digest();
  }
  return XXH3_64bits(bytes.data(), bytes.size());
}

HashDiff diff_hashes(const StateHash& a, const StateHash& b) noexcept {
  HashDiff d;
  if (a.total != b.total) d.parts |= kPartTotal;
  if (a.tick != b.tick) d.parts |= kPartTick;
  if (a.entities != b.entities) d.parts |= kPartEntities;
  if (a.archetypes != b.archetypes) d.parts |= kPartArchetypes;
  if (a.resources != b.resources) d.parts |= kPartResources;
  if (a.component_count != b.component_count) d.parts |= kPartComponentCount;
  const std::uint32_t n = a.component_count > b.component_count ? a.component_count : b.component_count;
  for (std::uint32_t c = 0; c < n && c < StateHash::kMaxComponents; ++c) {
    const std::uint64_t x = c < a.component_count ? a.components[c] : 0;
    const std::uint64_t y = c < b.component_count ? b.components[c] : 0;
    if (x != y || c >= a.component_count || c >= b.component_count)
      d.components[d.component_count++] = static_cast<std::uint8_t>(c);
  }
  // Per-resource ids only when both sides carry them (hashes rebuilt from recordings have
  // only the combined `resources`).
  if (a.resource_count == b.resource_count)
    for (std::uint32_t r = 0; r < a.resource_count; ++r)
      if (a.resource_parts[r] != b.resource_parts[r]) d.resources[d.resource_count++] = static_cast<std::uint8_t>(r);
  return d;
}

void format_hex(std::uint64_t value, char out[16]) noexcept {
  constexpr char digits[] = "0123456789abcdef";
  for (int i = 15; i >= 0; --i) {
    out[i] = digits[value & 0xFu];
    value >>= 4;
  }
}

std::string to_hex(std::uint64_t value) {
  char buf[16];
  format_hex(value, buf);
  return std::string(buf, 16);
}

namespace {
std::string component_name(const StorageView& schema, std::uint32_t c) {
  if (c < schema.component_count()) return schema.component(c).name;
  return "#" + std::to_string(c);
}
}  // namespace

std::string describe_hash_diff(const StateHash& a, const StateHash& b, const StorageView& schema) {
  const HashDiff d = diff_hashes(a, b);
  std::string out = "tick " + std::to_string(a.tick);
  if (a.tick != b.tick) out += " vs " + std::to_string(b.tick);
  out += ": ";
  if (d.empty()) return out + "hashes equal";
  out += (d.parts & kPartTotal) ? "total differs" : "total equal";
  if (d.parts & kPartTick) out += "; tick";
  if (d.parts & kPartEntities) out += "; entity table";
  if (d.parts & kPartArchetypes) out += "; archetype structure";
  if (d.parts & kPartResources) {
    out += "; resources";
    for (std::uint32_t i = 0; i < d.resource_count; ++i) {
      out += i == 0 ? ": " : ", ";
      const std::uint32_t r = d.resources[i];
      out += r < schema.resource_count() ? std::string(schema.resource(r).name) : "#" + std::to_string(r);
    }
  }
  if (d.parts & kPartComponentCount)
    out += "; component count " + std::to_string(a.component_count) + " vs " + std::to_string(b.component_count);
  if (d.component_count != 0) {
    out += "; components:";
    for (std::uint32_t i = 0; i < d.component_count; ++i) {
      out += i == 0 ? " " : ", ";
      out += component_name(schema, d.components[i]);
    }
  }
  return out;
}

std::string format_state_hash(const StateHash& h, const StorageView& schema) {
  std::string out;
  out += "total " + to_hex(h.total) + "\n";
  out += "tick " + std::to_string(h.tick) + "\n";
  out += "entities " + to_hex(h.entities) + "\n";
  out += "archetypes " + to_hex(h.archetypes) + "\n";
  out += "resources " + to_hex(h.resources) + "\n";
  for (std::uint32_t c = 0; c < h.component_count; ++c)
    out += "component " + component_name(schema, c) + " " + to_hex(h.components[c]) + "\n";
  for (std::uint32_t r = 0; r < h.resource_count; ++r)
    out += "resource " + (r < schema.resource_count() ? std::string(schema.resource(r).name) : "#" + std::to_string(r)) +
           " " + to_hex(h.resource_parts[r]) + "\n";
  return out;
}

}  // namespace lockstep
