#pragma once
// Conservative write marks: what incremental hashing (lockstep::IncrementalHasher,
// docs/hashing.md "Incremental hashing") may skip. Not state: never hashed, saved or
// compared between worlds; only ever compared with a value read from the same world.
//
// Every way of obtaining mutable access to a component column or a resource stamps the part
// with a fresh value of `clock` *when the access is handed out* (each/query Write terms,
// getMutable, addComponent, a flush, a mutable resource<T>()); events that may change any
// part (load, clear, registration) stamp `everything`. A hasher that recorded `clock` at its
// last hash recomputes exactly the parts whose stamp is newer. The clock only advances when
// a mark is set, so hashing never mutates the world.
#include <cstdint>

namespace lockstep::detail {

struct WriteMarks {
  std::uint64_t clock = 1;       // last stamp handed out; never decreases
  std::uint64_t everything = 1;  // stamp of the last event that may have changed every part
  std::uint64_t component[256] = {};
  std::uint64_t resource[256] = {};
  // While a concurrent stage runs (World::ConcurrentStage) everything its systems may write was
  // stamped when it began, and nothing is stamped until it ends: the lanes share no counter.
  bool frozen = false;

  void component_written(std::uint32_t id) noexcept {
    if (!frozen) component[id & 0xFFu] = ++clock;
  }
  void resource_written(std::uint32_t id) noexcept {
    if (!frozen) resource[id & 0xFFu] = ++clock;
  }
  void all_written() noexcept { everything = ++clock; }
};

}  // namespace lockstep::detail
