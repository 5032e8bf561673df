// ThreadPool (thread_pool.h): a fixed set of workers started once, handed batches of tasks.
//
// A batch is (fn, ctx, count); every thread has a contiguous share of the tasks and claims
// them with its share's atomic counter, then claims from the other shares, so a thread that
// finishes early takes tasks left elsewhere. That makes the *assignment* of tasks to threads a
// matter of timing, which is harmless because every task writes only its own outputs (the parallel
// loops' contract) — the results never depend on it.
//
// Why workers spin before they sleep: waking a thread blocked in the kernel costs tens to
// hundreds of microseconds on a virtual machine (the idle vCPU must be interrupted), while a
// tick's parallel loops last a few hundred. Measured on the 2-vCPU development VM with a
// worker that only slept between batches: the caller had claimed nearly every chunk before
// the worker woke (worker CPU ~10 % of the caller's, speedup 0.98x). So a worker that finishes
// a batch polls for the next one for a short while (kIdleSpin) before it blocks, and while the
// pool is held awake (AwakeScope, one per tick in the Runner) it polls for the whole window,
// capped at kAwakeSpinCap after its last batch in case a scope is never closed.
#include <lockstep/exec/thread_pool.h>
#include <lockstep/detail/pool_hooks.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <vector>

#include <thread>

#if defined(__EMSCRIPTEN__) && !defined(__EMSCRIPTEN_PTHREADS__)
#define LOCKSTEP_POOL_NO_THREADS 1
#endif

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace lockstep {

namespace detail {

namespace {

// lockstep: allow(time) how long an idle worker polls before it sleeps: scheduling only, no task result depends on it
using Clock = std::chrono::steady_clock;
// lockstep: allow(time) how long an idle worker polls before it sleeps: scheduling only, no task result depends on it
constexpr auto kIdleSpin = std::chrono::microseconds(50);
// lockstep: allow(time) how long an idle worker polls before it sleeps: scheduling only, no task result depends on it
constexpr auto kAwakeSpinCap = std::chrono::milliseconds(5);

inline void cpu_relax() noexcept {
#if defined(__x86_64__) || defined(__i386__)
  _mm_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

// lockstep: allow(static) a test seam (detail/pool_hooks.h): scheduling only, null outside the kernel's tests
std::atomic<PoolWorkerHook> worker_hook{nullptr};

}  // namespace

void set_pool_worker_hook(PoolWorkerHook hook) noexcept { worker_hook.store(hook, std::memory_order_relaxed); }

struct PoolState {
  std::mutex mutex;               // only for sleeping workers (start) and shutdown
  std::condition_variable start;  // sleeping workers wait here for a batch, awake or stop
  std::atomic<std::uint64_t> generation{0};  // batches started
  std::atomic<std::uint32_t> busy{0};        // workers still inside the current batch
  std::atomic<std::uint32_t> awake{0};       // open AwakeScopes
  std::atomic<std::uint32_t> awake_opened{0};  // AwakeScopes ever opened: wakes sleepers
  std::atomic<bool> stop{false};
  // The batch: written by the caller before generation is bumped (release), read by the
  // workers after they see the new generation (acquire). Never rewritten while a worker of
  // the batch runs: the caller waits for busy == 0 before it returns.
  ThreadPool::TaskFn fn = nullptr;
  void* ctx = nullptr;
  // Thread t's share of a batch: tasks [t * count / threads, (t + 1) * count / threads). It
  // claims those first, so the same loop next tick (a batch of the same size) gives a thread
  // the same rows, still in its own cache: on the development VM a loop over rows another core
  // wrote last ran slower on two threads than on one (docs/benchmarks.md, "Where the second
  // core goes"). A thread done with its share claims from the others' (next thread first), so
  // a late or slow thread holds nobody up. Which thread runs a task is still timing, and no
  // result depends on it. One cache line per share: claims never contend on a line.
  struct alignas(64) Share {
    std::atomic<std::uint32_t> next{0};  // next unclaimed task of this share
    std::uint32_t end = 0;               // one past the share's last task
  };
  std::uint32_t threads = 1;
  std::unique_ptr<Share[]> shares;
#ifndef LOCKSTEP_POOL_NO_THREADS
  std::vector<std::thread> workers;
#endif

  // Sets the shares of a batch of n tasks (before the generation is published).
  void split(std::uint32_t n) noexcept {
    for (std::uint32_t t = 0; t < threads; ++t) {
      shares[t].next.store(static_cast<std::uint32_t>(std::uint64_t{n} * t / threads), std::memory_order_relaxed);
      shares[t].end = static_cast<std::uint32_t>(std::uint64_t{n} * (t + 1) / threads);
    }
  }

  // Thread `self` runs tasks of the current batch until none is left: its own share, then the
  // others'. fetch_add hands every index out once; a claim past a share's end is no task.
  void drain(ThreadPool::TaskFn f, void* c, std::uint32_t self) noexcept {
    for (std::uint32_t k = 0; k < threads; ++k) {
      Share& share = shares[(self + k) % threads];
      const std::uint32_t end = share.end;
      for (std::uint32_t i = share.next.fetch_add(1, std::memory_order_relaxed); i < end;
           i = share.next.fetch_add(1, std::memory_order_relaxed))
        f(c, i);
    }
  }

  // Wakes sleeping workers after generation, awake or stop changed. Taking the mutex between
  // the change and the notify closes the gap between a worker's last check and its wait.
  void wake_all() noexcept {
    { std::lock_guard lock(mutex); }
    start.notify_all();
  }

  // Polls for a generation other than `seen`: until the idle spin ends, or — while the pool
  // is held awake — until the awake cap. Returns the new generation or `seen`.
  std::uint64_t spin_for_batch(std::uint64_t seen) noexcept {
    const Clock::time_point begin = Clock::now();
    for (std::uint32_t i = 1;; ++i) {
      const std::uint64_t g = generation.load(std::memory_order_acquire);
      if (g != seen || stop.load(std::memory_order_relaxed)) return g;
      cpu_relax();
      if ((i & 63) == 0) {
        const auto spent = Clock::now() - begin;
        const bool held = awake.load(std::memory_order_relaxed) != 0;
        if (spent > (held ? Clock::duration(kAwakeSpinCap) : Clock::duration(kIdleSpin))) return seen;
        // Share the core with whatever else the machine runs (an oversubscribed host).
        if ((i & 1023) == 0) std::this_thread::yield();
      }
    }
  }

  void worker(std::uint32_t self) noexcept {
    std::uint64_t seen = 0;
    for (;;) {
      std::uint64_t g = spin_for_batch(seen);
      while (g == seen && !stop.load(std::memory_order_relaxed)) {
        std::unique_lock lock(mutex);
        const std::uint32_t opened = awake_opened.load(std::memory_order_relaxed);
        start.wait(lock, [&] {
          return stop.load(std::memory_order_relaxed) || generation.load(std::memory_order_acquire) != seen ||
                 awake_opened.load(std::memory_order_relaxed) != opened;
        });
        lock.unlock();
        g = spin_for_batch(seen);
      }
      if (stop.load(std::memory_order_relaxed)) return;
      seen = g;
      if (PoolWorkerHook hook = worker_hook.load(std::memory_order_relaxed)) hook(self);
      drain(fn, ctx, self);
      busy.fetch_sub(1, std::memory_order_release);  // orders this worker's task writes before run()'s return
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
  state_->threads = threads_;
  state_->shares = std::make_unique<detail::PoolState::Share[]>(threads_);
  state_->workers.reserve(threads_ - 1);
  for (std::uint32_t t = 1; t < threads_; ++t) state_->workers.emplace_back([s = state_.get(), t] { s->worker(t); });
#endif
}

ThreadPool::~ThreadPool() {
#ifndef LOCKSTEP_POOL_NO_THREADS
  state_->stop.store(true, std::memory_order_relaxed);
  state_->wake_all();
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
  s.fn = fn;
  s.ctx = ctx;
  s.split(count);
  s.busy.store(threads_ - 1, std::memory_order_relaxed);
  s.generation.fetch_add(1, std::memory_order_release);
  s.wake_all();
  s.drain(fn, ctx, 0);
  // The workers left are finishing their last task (the tasks are claimed): wait by polling,
  // yielding the core now and then in case one of them is not running.
  for (std::uint32_t i = 1; s.busy.load(std::memory_order_acquire) != 0; ++i) {
    detail::cpu_relax();
    if ((i & 255) == 0) std::this_thread::yield();
  }
}

void ThreadPool::hold_awake() noexcept {
#ifndef LOCKSTEP_POOL_NO_THREADS
  if (threads_ == 1) return;
  state_->awake.fetch_add(1, std::memory_order_relaxed);
  state_->awake_opened.fetch_add(1, std::memory_order_relaxed);
  state_->wake_all();
#endif
}

void ThreadPool::release_awake() noexcept {
#ifndef LOCKSTEP_POOL_NO_THREADS
  if (threads_ == 1) return;
  state_->awake.fetch_sub(1, std::memory_order_relaxed);
#endif
}

}  // namespace lockstep
