#pragma once
// Executor: the seam between the kernel's parallel work and whoever owns the threads
// (docs/systems.md, "Parallel ticks" and "Your own job system").
//
// The kernel asks for one thing: run tasks 0 .. count-1, each exactly once, on any threads,
// and return when all have returned. ThreadPool (exec/thread_pool.h) is the bundled
// implementation; a game engine with its own job system implements run() on it and hands
// the executor to World::setExecutor / Runner::setExecutor.
//
// Determinism does not depend on the executor: the kernel gives every task (a fixed chunk of
// rows, or one system of a concurrent stage) its own output and combines results in task
// order, so which thread runs a task, and when, changes timing only.
#include <cstdint>

namespace lockstep {

class Executor {
 public:
  using TaskFn = void (*)(void* ctx, std::uint32_t task) noexcept;

  virtual ~Executor() = default;

  // Threads that may run tasks at once, the caller's included (1: everything runs on the
  // calling thread, and the kernel does not call run() for its loops).
  virtual std::uint32_t threads() const noexcept = 0;

  // Calls fn(ctx, i) exactly once for every i in [0, count) and returns when all calls have
  // returned. Must not allocate per call (ticks are allocation-free), must not throw, and must
  // make the tasks' writes visible to the caller on return (a join, a barrier or a mutex does).
  // The kernel never calls run() from inside a task of the same executor.
  virtual void run(std::uint32_t count, TaskFn fn, void* ctx) noexcept = 0;

  // Optional hints around a burst of batches (a tick): an executor may keep its workers
  // spinning in between instead of sleeping. Timing only; the default does nothing.
  virtual void hold_awake() noexcept {}
  virtual void release_awake() noexcept {}

  class AwakeScope {
   public:
    explicit AwakeScope(Executor* executor) noexcept : executor_(executor) {
      if (executor_ != nullptr) executor_->hold_awake();
    }
    ~AwakeScope() {
      if (executor_ != nullptr) executor_->release_awake();
    }
    AwakeScope(const AwakeScope&) = delete;
    AwakeScope& operator=(const AwakeScope&) = delete;

   private:
    Executor* executor_;
  };

  // The same with a callable: f(i). The callable lives on the caller's stack for the batch.
  template <class F>
  void for_each(std::uint32_t count, F& f) noexcept {
    run(count, [](void* c, std::uint32_t i) noexcept { (*static_cast<F*>(c))(i); }, &f);
  }
};

}  // namespace lockstep
