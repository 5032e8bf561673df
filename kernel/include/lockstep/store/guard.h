#pragma once
// The iteration-legality guard: the sets a live loop protects, and what the world does when
// a call breaks the contract (docs/kernel.md, "Iteration legality").
#include <cstdint>

namespace lockstep {

struct AccessSet;  // store/system_access.h

// What the world does when a call breaks the iteration-legality contract.
enum class GuardPolicy : std::uint8_t {
  Abort = 0,   // report the event, then abort with file/line (default in Debug builds)
  Reject = 1,  // report the event, skip the mutation, return InvalidArgument (default otherwise)
};

namespace detail {

// Membership-only set of ids < 256. Never iterated to produce an order.
struct IdSet256 {
  std::uint64_t words[4] = {0, 0, 0, 0};

  constexpr void insert(std::uint32_t id) noexcept { words[id >> 6] |= std::uint64_t{1} << (id & 63u); }
  constexpr void erase(std::uint32_t id) noexcept { words[id >> 6] &= ~(std::uint64_t{1} << (id & 63u)); }
  constexpr bool contains(std::uint32_t id) const noexcept {
    return (words[id >> 6] >> (id & 63u)) & 1u;
  }
  constexpr bool contains_all(const IdSet256& other) const noexcept {
    for (int i = 0; i < 4; ++i)
      if ((words[i] & other.words[i]) != other.words[i]) return false;
    return true;
  }
  constexpr bool empty() const noexcept { return (words[0] | words[1] | words[2] | words[3]) == 0; }
  constexpr bool intersects(const IdSet256& other) const noexcept {
    return ((words[0] & other.words[0]) | (words[1] & other.words[1]) | (words[2] & other.words[2]) |
            (words[3] & other.words[3])) != 0;
  }
  constexpr void unite(const IdSet256& other) noexcept {
    for (int i = 0; i < 4; ++i) words[i] |= other.words[i];
  }
  friend constexpr bool operator==(const IdSet256&, const IdSet256&) noexcept = default;
};

// The live guard of one each() call; stack-owned by each().
struct IterationGuard {
  IdSet256 matched_archetypes;
  IdSet256 read_components;   // listed and declared Read
  IdSet256 listed_components;  // every listed component
  bool observer = false;       // an observer runs: create() is refused too (observers.h)
};

// The call state of the running system: its installed AccessSet and the live iteration guard.
// Not state (never hashed or saved). One per world, except inside a ConcurrentStage, where
// every Lane (thread) has its own (exec/concurrent_stage.h).
struct CallState {
  IterationGuard* guard = nullptr;
  const AccessSet* access = nullptr;
};

// The calling thread's Lane call state, or null (kernel/src/concurrent_stage.cpp). Read only
// while a ConcurrentStage is live.
CallState* current_lane() noexcept;

}  // namespace detail
}  // namespace lockstep
