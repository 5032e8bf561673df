#pragma once
// TickProbe: where a tick's time goes, observed from outside (docs/timing-traces.md).
//
// Runner and RollbackSession announce the slices of their work to an optional probe: the
// input application, each system by name, the flush and the hash of every tick, and a
// session's snapshot saves, rollbacks (state restore) and resimulations. The probe decides
// what to do with them (the CLI's recorder reads a clock and writes Chrome trace-event JSON,
// cli/src/timing_trace.h). Nothing here reads a clock, and nothing a probe does can reach the
// simulation: it sees names and ticks, never the world. Without a probe (the default) the
// cost is one predictable branch per slice.
//
// Slices nest strictly (a system inside a resimulation inside a frame): every begin() is
// matched by exactly one end() of the same kind, also on error paths.
#include <cstdint>

namespace lockstep::replay {

enum class Slice : std::uint8_t {
  Inputs = 0,      // Sim::apply_inputs
  System = 1,      // one system; the name is the system's
  Flush = 2,       // the command buffer's flush
  Hash = 3,        // the state hash after the tick
  Snapshot = 4,    // a snapshot save (a session's ring, a benchmark)
  Restore = 5,     // a snapshot load (a benchmark)
  Rollback = 6,    // a session restoring an earlier state after a misprediction
  Resimulate = 7,  // a session re-running ticks after a rollback (contains their ticks)
};
const char* to_string(Slice slice) noexcept;

class TickProbe {
 public:
  // `name`: a string with static storage duration (a system's name or to_string(kind));
  // `tick`: the world's tick when the slice starts.
  virtual void begin(Slice kind, const char* name, std::uint64_t tick) noexcept = 0;
  virtual void end(Slice kind) noexcept = 0;

 protected:
  ~TickProbe() = default;
};

// begin() now, end() at scope exit; nothing when `probe` is null.
class ProbeScope {
 public:
  ProbeScope(TickProbe* probe, Slice kind, std::uint64_t tick, const char* name = nullptr) noexcept
      : probe_(probe), kind_(kind) {
    if (probe_ != nullptr) probe_->begin(kind, name != nullptr ? name : to_string(kind), tick);
  }
  ~ProbeScope() {
    if (probe_ != nullptr) probe_->end(kind_);
  }
  ProbeScope(const ProbeScope&) = delete;
  ProbeScope& operator=(const ProbeScope&) = delete;

 private:
  TickProbe* probe_;
  Slice kind_;
};

}  // namespace lockstep::replay
