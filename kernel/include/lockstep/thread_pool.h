#pragma once
// ThreadPool: the workers of parallel ticks (docs/systems.md, "Parallel ticks").
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
// condition variable). Where the platform has no threads (emscripten without pthreads) a pool
// runs every batch on the calling thread.
#include <cstdint>
#include <memory>

namespace lockstep {

namespace detail {
struct PoolState;
}

class ThreadPool {
 public:
  using TaskFn = void (*)(void* ctx, std::uint32_t task) noexcept;

  // `threads` = threads that run tasks, the caller's included (so `threads - 1` workers are
  // started here, once). 0 and 1 start none: every batch runs on the calling thread.
  explicit ThreadPool(std::uint32_t threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  // Threads that run tasks (at least 1: the caller).
  std::uint32_t threads() const noexcept { return threads_; }

  // Calls fn(ctx, i) for every i in [0, count) and returns when all calls have returned.
  // Allocation-free. Not reentrant: fn must not call run on the same pool, and one batch runs
  // at a time (the world's owning thread is the only caller).
  void run(std::uint32_t count, TaskFn fn, void* ctx) noexcept;

  // The same with a callable: f(i). The callable lives on the caller's stack for the batch.
  template <class F>
  void for_each(std::uint32_t count, F& f) noexcept {
    run(count, [](void* c, std::uint32_t i) noexcept { (*static_cast<F*>(c))(i); }, &f);
  }

 private:
  std::uint32_t threads_ = 1;
  std::unique_ptr<detail::PoolState> state_;
};

}  // namespace lockstep
