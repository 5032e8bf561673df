// ThreadPool (thread_pool.h): a fixed set of workers started once, woken per batch.
//
// A batch is (fn, ctx, count); tasks are claimed with one atomic counter, so a thread that
// finishes early takes the next task. That makes the *assignment* of tasks to threads a matter
// of timing, which is harmless because every task writes only its own outputs (the parallel
// loops' contract) — the results never depend on it.
#include <lockstep/thread_pool.h>

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <vector>

#if defined(__EMSCRIPTEN__) && !defined(__EMSCRIPTEN_PTHREADS__)
#define LOCKSTEP_POOL_NO_THREADS 1
#else
#include <thread>
#endif

namespace lockstep {

namespace detail {

struct PoolState {
  std::mutex mutex;
  std::condition_variable start;  // workers wait here for a new batch (or stop)
  std::condition_variable done;   // the caller waits here for busy == 0
  std::uint64_t generation = 0;   // batches started; guarded by mutex
  std::uint32_t busy = 0;         // workers still inside the current batch; guarded by mutex
  bool stop = false;
  ThreadPool::TaskFn fn = nullptr;
  void* ctx = nullptr;
  std::uint32_t count = 0;
  std::atomic<std::uint32_t> next{0};  // next unclaimed task of the current batch
#ifndef LOCKSTEP_POOL_NO_THREADS
  std::vector<std::thread> workers;
#endif

  // Claims and runs tasks of the current batch until none is left.
  void drain(ThreadPool::TaskFn f, void* c, std::uint32_t n) noexcept {
    for (std::uint32_t i = next.fetch_add(1, std::memory_order_relaxed); i < n;
         i = next.fetch_add(1, std::memory_order_relaxed))
      f(c, i);
  }

  void worker() noexcept {
    std::uint64_t seen = 0;
    for (;;) {
      ThreadPool::TaskFn f;
      void* c;
      std::uint32_t n;
      {
        std::unique_lock lock(mutex);
        start.wait(lock, [&] { return stop || generation != seen; });
        if (stop) return;
        seen = generation;
        f = fn;
        c = ctx;
        n = count;
      }
      drain(f, c, n);
      {
        // The mutex orders this worker's task writes before the caller's return from run().
        std::lock_guard lock(mutex);
        if (--busy == 0) done.notify_one();
      }
    }
  }
};

}  // namespace detail

ThreadPool::ThreadPool(std::uint32_t threads) : state_(std::make_unique<detail::PoolState>()) {
#ifdef LOCKSTEP_POOL_NO_THREADS
  (void)threads;
  threads_ = 1;
#else
  threads_ = threads < 1 ? 1 : threads;
  state_->workers.reserve(threads_ - 1);
  for (std::uint32_t t = 1; t < threads_; ++t) state_->workers.emplace_back([s = state_.get()] { s->worker(); });
#endif
}

ThreadPool::~ThreadPool() {
#ifndef LOCKSTEP_POOL_NO_THREADS
  {
    std::lock_guard lock(state_->mutex);
    state_->stop = true;
  }
  state_->start.notify_all();
  for (std::thread& t : state_->workers) t.join();
#endif
}

void ThreadPool::run(std::uint32_t count, TaskFn fn, void* ctx) noexcept {
  if (count == 0) return;
  detail::PoolState& s = *state_;
  if (threads_ == 1 || count == 1) {
    for (std::uint32_t i = 0; i < count; ++i) fn(ctx, i);
    return;
  }
  {
    std::lock_guard lock(s.mutex);
    s.fn = fn;
    s.ctx = ctx;
    s.count = count;
    s.next.store(0, std::memory_order_relaxed);
    s.busy = threads_ - 1;
    ++s.generation;
  }
  s.start.notify_all();
  s.drain(fn, ctx, count);
  std::unique_lock lock(s.mutex);
  s.done.wait(lock, [&] { return s.busy == 0; });
}

}  // namespace lockstep
