// Concurrent stages: systems of one stage running at once, each on its own thread
// (exec/concurrent_stage.h; docs/systems.md, "Concurrent stages").
//
// What makes the lanes safe to run together is that, for the stage's life, they share no
// written byte but the component columns, change ticks and resources they declared: the rest
// of the world's bookkeeping is either prepared here once (row order, write marks, the views'
// journal) or refused (structural and world-wide changes, lane_refused).
#include <lockstep/world.h>

#include <bit>
#include <cstdint>

namespace lockstep {

namespace {

// lockstep: allow(static) which Lane this thread runs (call state of a running system), not simulation state
thread_local detail::CallState* lane_call = nullptr;

template <class Fn>
void for_each_id(const detail::IdSet256& set, Fn&& fn) {
  for (std::uint32_t word = 0; word < 4; ++word)
    for (std::uint64_t bits = set.words[word]; bits != 0; bits &= bits - 1)
      fn(word * 64u + static_cast<std::uint32_t>(std::countr_zero(bits)));
}

}  // namespace

detail::CallState* detail::current_lane() noexcept { return lane_call; }

Lane::Lane(const World& world, const AccessSet* access) noexcept : previous_(lane_call) {
  (void)world;
  state_.access = access;
  lane_call = &state_;
}

Lane::~Lane() { lane_call = previous_; }

ConcurrentStage::ConcurrentStage(World& world, const AccessSet* const* access, std::uint32_t count) noexcept
    : world_(world) {
  World& w = world_;
  // Not from inside a stage, a query or an observer; not with observers (their access is not
  // part of the plan); every system's declaration must be known.
  if (w.lanes_ || w.call().guard != nullptr || w.observerCount() != 0 || count < 2) return;
  for (std::uint32_t i = 0; i < count; ++i)
    if (access[i] == nullptr) return;
  w.settle_all();
  detail::ViewJournal* const journal = w.view_journal_;
  for (std::uint32_t i = 0; i < count; ++i) {
    const AccessSet& a = *access[i];
    for_each_id(a.write_components, [&](std::uint32_t id) {
      w.marks_.component_written(id);
      if (journal != nullptr) journal->column(id);  // the views rescan these columns
    });
    // Resources declared Read too: the mutable resource<T>() of a Read declaration is served
    // and counts as a write (system_access.cpp).
    for_each_id(a.read_resources, [&](std::uint32_t id) { w.marks_.resource_written(id); });
    for_each_id(a.write_resources, [&](std::uint32_t id) { w.marks_.resource_written(id); });
  }
  journal_ = journal;
  w.view_journal_ = nullptr;
  w.marks_.frozen = true;
  // Recordings are checked against the recording thread's installed set (install_access).
  w.commands_->access_world_ = &w;
  w.lanes_ = true;
  active_ = true;
}

ConcurrentStage::~ConcurrentStage() {
  if (!active_) return;
  World& w = world_;
  w.lanes_ = false;
  w.marks_.frozen = false;
  w.view_journal_ = journal_;
  w.commands_->access_world_ = w.serial_call_.access != nullptr ? &w : nullptr;
}

}  // namespace lockstep
