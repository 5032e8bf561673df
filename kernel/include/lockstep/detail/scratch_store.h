#pragma once
// Storage of a world's scratch resources (docs/kernel.md, "Scratch resources"). Internal; use
// World::registerScratch / scratch / beginTick. Not state: nothing here is hashed, saved,
// loaded, dumped or diffed, and StorageView does not see it.
#include <lockstep/store/field.h>

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
  static std::size_t bytes_of(const Entry& e) noexcept { return std::size_t{e.size} * e.count; }
  void zero() noexcept { zero_share(0, 1); }
  // Share `task` of `tasks` of every entry: [task/tasks, (task+1)/tasks) of its bytes, cut at
  // 64-byte lines (World::beginTick clears the shares on the pool, docs/kernel.md).
  void zero_share(std::uint32_t task, std::uint32_t tasks) noexcept {
    constexpr std::uint64_t kLine = 64;
    for (std::uint32_t i = 0; i < used; ++i) {
      const std::uint64_t n = bytes_of(entries[i]);
      const std::uint64_t lines = (n + kLine - 1) / kLine;
      const std::uint64_t begin = lines * task / tasks * kLine;
      const std::uint64_t end = lines * (task + 1) / tasks * kLine < n ? lines * (task + 1) / tasks * kLine : n;
      if (begin < end) std::memset(entries[i].data + begin, 0, static_cast<std::size_t>(end - begin));
    }
  }
  // Every scratch byte, entry after entry, to/from `bytes` bytes at out/in.
  void copy_out(std::byte* out) const noexcept {
    for (std::uint32_t i = 0; i < used; ++i) {
      const std::size_t n = bytes_of(entries[i]);
      std::memcpy(out, entries[i].data, n);
      out += n;
    }
  }
  void copy_in(const std::byte* in) noexcept {
    for (std::uint32_t i = 0; i < used; ++i) {
      const std::size_t n = bytes_of(entries[i]);
      std::memcpy(entries[i].data, in, n);
      in += n;
    }
  }
};

}  // namespace lockstep::detail
