#pragma once
// Concurrent stages (docs/systems.md, "Concurrent stages"): systems whose declared access does
// not conflict run at once, each on its own thread (Runner::setConcurrentStages drives this).
//
// While a ConcurrentStage is live:
//  - the call state (installed AccessSet, iteration guard) is per thread: each thread that
//    runs a system holds a Lane; access checks and the iteration guard work as serially;
//  - row order was settled when the stage began, so queries only read it;
//  - the write marks (incremental hash) and the views' journal were stamped for everything
//    the stage's systems declare Write (resources also Read), then frozen: the lanes write
//    no shared bookkeeping (both are conservative by contract, so hashes stay exact);
//  - structural and world-wide changes — create, destroy, add/remove, enable bits, clear,
//    flush, load, beginTick, updateViews, observe, registration, trackChanges — are refused
//    with EventId::ConcurrentStageChange naming the system: record them as commands instead
//    (the plan lets at most one system of a stage declare Commands, so the one command
//    buffer records exactly what the serial run records);
//  - parallel loops run on the lane's own thread (the executor is busy running the lanes).
// The bytes every system sees and writes are then those of the serial run in declared order,
// given declarations that are true (Runner::setStageCheck verifies them). A world with
// observers does not go concurrent (their access is not in the plan): active() is false and
// the caller runs the stage's systems one after the other, as it must on one thread.
#include <lockstep/store/guard.h>

#include <cstdint>

namespace lockstep {

class World;
struct AccessSet;

namespace detail {
struct ViewJournal;
}

class ConcurrentStage {
 public:
  // `access`: the declared sets of the stage's systems (count of them).
  ConcurrentStage(World& world, const AccessSet* const* access, std::uint32_t count) noexcept;
  ~ConcurrentStage();
  ConcurrentStage(const ConcurrentStage&) = delete;
  ConcurrentStage& operator=(const ConcurrentStage&) = delete;
  bool active() const noexcept { return active_; }

 private:
  World& world_;
  detail::ViewJournal* journal_ = nullptr;
  bool active_ = false;
};

// The calling thread's call state for the lane's life, with `access` installed (null: no
// checks). Only meaningful inside a live ConcurrentStage; one Lane per thread at a time.
class Lane {
 public:
  Lane(const World& world, const AccessSet* access) noexcept;
  ~Lane();
  Lane(const Lane&) = delete;
  Lane& operator=(const Lane&) = delete;

 private:
  detail::CallState state_;
  detail::CallState* previous_;
};

}  // namespace lockstep
