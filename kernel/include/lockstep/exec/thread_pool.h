#pragma once
// ThreadPool: the bundled Executor (exec/executor.h), the workers of parallel ticks
// (docs/systems.md, "Parallel ticks").
//
// A game creates one pool (its thread count is the game's choice; 0 means serial: no pool)
// and hands it to the world (World::setThreadPool) or the runner (Runner::setThreads). The
// pool runs a batch of numbered tasks: run(count, fn, ctx) calls fn(ctx, i) once for every i
// in [0, count), on the calling thread and the pool's workers, and returns when all are done.
//
// Which thread runs which task, and in which order they finish, is timing — so nothing may
// depend on it: parallel loops give every task (a fixed chunk of rows) its own output, and
// results are combined afterwards in task order (World::parallelEach / parallelEachChunk).
//
// Why a small pool of our own rather than oneTBB: the kernel depends on nothing but the
// standard library (it also builds for wasm, mingw and s390x without extra packages), the only
// operation needed is "run N independent tasks and wait", and it must not allocate after
// construction (a task is a function pointer and a context pointer; workers wait on one
// condition variable; between batches they poll briefly first, see hold_awake). Where the
// platform has no threads (emscripten without pthreads) a pool
// runs every batch on the calling thread.
#include <lockstep/exec/executor.h>

#include <cstdint>
#include <memory>

namespace lockstep {

namespace detail {
struct PoolState;
}

class ThreadPool final : public Executor {
 public:
  // `threads` = threads that run tasks, the caller's included (so `threads - 1` workers are
  // started here, once). 0 and 1 start none: every batch runs on the calling thread.
  explicit ThreadPool(std::uint32_t threads);
  ~ThreadPool() override;
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  // Threads that run tasks (at least 1: the caller).
  std::uint32_t threads() const noexcept override { return threads_; }

  // Calls fn(ctx, i) for every i in [0, count) and returns when all calls have returned.
  // Allocation-free. Not reentrant: fn must not call run on the same pool, and one batch runs
  // at a time (the world's owning thread is the only caller).
  void run(std::uint32_t count, TaskFn fn, void* ctx) noexcept override;

  // Holds the workers awake between batches (polling instead of sleeping) from hold_awake()
  // until the matching release_awake(): a caller about to run several batches in a short
  // time (a tick) spares each batch the kernel wake-up of a sleeping thread, which costs more
  // than a chunk of rows on a virtual machine. Costs the workers' cores for the window, so
  // keep it to the work (the Runner holds it for each tick). Scopes nest; a worker that sees
  // no batch for 5 ms sleeps anyway. Timing only: results are the same either way.
  void hold_awake() noexcept override;
  void release_awake() noexcept override;

 private:
  std::uint32_t threads_ = 1;
  std::unique_ptr<detail::PoolState> state_;
};

}  // namespace lockstep
