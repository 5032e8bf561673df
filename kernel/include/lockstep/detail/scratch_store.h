#pragma once
// Storage of a world's scratch resources (docs/kernel.md, "Scratch resources"). Internal; use
// World::registerScratch / scratch / beginTick. Not state: nothing here is hashed, saved,
// loaded, dumped or diffed, and StorageView does not see it.
#include <lockstep/field.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>

namespace lockstep::detail {

struct ScratchStore {
  static constexpr std::uint32_t kMax = 16;
  struct Entry {
    std::uint32_t key = 0;    // process-local type key (lookup only)
    std::uint32_t size = 0;   // sizeof(T)
    std::uint32_t count = 0;  // elements
    const TypeDescriptor* type = nullptr;
    std::byte* data = nullptr;  // 64-byte aligned inside blocks[i]
  };
  Entry entries[kMax];
  std::unique_ptr<std::byte[]> blocks[kMax];
  std::uint32_t used = 0;
  std::uint64_t bytes = 0;  // Σ size × count: what zero() clears

  std::int32_t find(std::uint32_t key) const noexcept {
    for (std::uint32_t i = 0; i < used; ++i)
      if (entries[i].key == key) return static_cast<std::int32_t>(i);
    return -1;
  }
  void zero() noexcept {
    for (std::uint32_t i = 0; i < used; ++i)
      std::memset(entries[i].data, 0, std::size_t{entries[i].size} * entries[i].count);
  }
  // Every scratch byte, entry after entry, to/from `bytes` bytes at out/in.
  void copy_out(std::byte* out) const noexcept {
    for (std::uint32_t i = 0; i < used; ++i) {
      const std::size_t n = std::size_t{entries[i].size} * entries[i].count;
      std::memcpy(out, entries[i].data, n);
      out += n;
    }
  }
  void copy_in(const std::byte* in) noexcept {
    for (std::uint32_t i = 0; i < used; ++i) {
      const std::size_t n = std::size_t{entries[i].size} * entries[i].count;
      std::memcpy(entries[i].data, in, n);
      in += n;
    }
  }
};

}  // namespace lockstep::detail
