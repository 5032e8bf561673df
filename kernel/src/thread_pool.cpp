// ThreadPool (thread_pool.h): a fixed set of workers started once, handed batches of tasks.
//
// A batch is (fn, ctx, count); every thread has a contiguous share of the tasks and claims
// them with its share's atomic counter, then claims from the other shares, so a thread that
// finishes early takes tasks left elsewhere. That makes the *assignment* of tasks to threads a
// matter of timing, which is harmless because every task writes only its own outputs (the parallel
// loops' contract) — the results never depend on it.
//
// Workers join a batch; they are not counted into it. The machine is shared (the game's own
// render and audio threads, the OS, other processes), so any worker may be descheduled for a
// whole scheduler time slice (milliseconds) at any moment. A pool that counts every worker into
// every batch and waits for each to check in loses that slice whenever one is late: measured
// before this design, `--threads 2` beside two compiler jobs on 2 cores ran 0.03-0.72x the
// serial speed. So the caller runs every task no worker has claimed, closes the batch, and
// waits only for the workers that joined it before it closed — each of them finishing the one
// task it holds. A worker that sees the batch late finds it closed and leaves it alone.
// Joining and closing are read-modify-writes of one word (BatchWord), so there is no window
// in which a late worker has announced itself but not yet found the batch closed.
//
// Why workers spin before they sleep: waking a thread blocked in the kernel costs tens to
// hundreds of microseconds on a virtual machine (the idle vCPU must be interrupted), while a
// tick's parallel loops last a few hundred. Measured on the 2-vCPU development VM with a
// worker that only slept between batches: the caller had claimed nearly every chunk before
// the worker woke (worker CPU ~10 % of the caller's, speedup 0.98x). So a worker that finishes
// a batch polls for the next one for a short while (kIdleSpin) before it blocks, and while the
// pool is held awake (AwakeScope, one per tick in the Runner) it polls for the whole window,
// capped at kAwakeSpinCap after its last batch in case a scope is never closed.
#include <lockstep/detail/pool_hooks.h>
#include <lockstep/exec/thread_pool.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

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
// lockstep: allow(time) how long the caller polls for joined workers before it sleeps: scheduling only
constexpr auto kCallerSpin = std::chrono::microseconds(50);

inline void cpu_relax() noexcept {
#if defined(__x86_64__) || defined(__i386__)
  _mm_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

// lockstep: allow(static) a test seam (detail/pool_hooks.h): scheduling only, null outside the kernel's tests
std::atomic<PoolWorkerHook> worker_hook{nullptr};

// The batch word: which batch, whether it is open, how many workers joined it, and whether
// the caller sleeps waiting for them.
//   bits  0..31  workers that joined the batch and have not left it
//   bit   32     open: workers may still join
//   bit   33     the caller sleeps until the joined count reaches 0
//   bits 34..63  batch number (wraps; only compared for equality)
struct BatchWord {
  static constexpr std::uint64_t kJoined = 0xFFFF'FFFFull;
  static constexpr std::uint64_t kOpen = 1ull << 32;
  static constexpr std::uint64_t kCallerSleeps = 1ull << 33;
  static constexpr std::uint64_t kBatchUnit = 1ull << 34;
  static constexpr std::uint64_t joined(std::uint64_t w) noexcept { return w & kJoined; }
  static constexpr std::uint64_t batch(std::uint64_t w) noexcept { return w & ~(kBatchUnit - 1); }
};

}  // namespace

void set_pool_worker_hook(PoolWorkerHook hook) noexcept { worker_hook.store(hook, std::memory_order_relaxed); }

struct PoolState {
  std::mutex mutex;               // only for sleeping threads (start, done) and shutdown
  std::condition_variable start;  // sleeping workers wait here for a batch, awake or stop
  std::condition_variable done;   // a sleeping caller waits here for the joined workers
  std::atomic<std::uint64_t> word{0};        // BatchWord
  std::atomic<std::uint32_t> sleepers{0};    // workers in (or about to enter) start.wait
  std::atomic<std::uint32_t> awake{0};       // open AwakeScopes
  std::atomic<std::uint32_t> awake_opened{0};  // AwakeScopes ever opened: wakes sleepers
  std::atomic<bool> stop{false};
  std::uint64_t last_batch = 0;  // the caller's: batch number of the last batch opened
  // The batch: written by the caller before it opens the batch (release), read by a worker
  // only after it joined (acquire). Never rewritten while a joined worker runs: the caller
  // waits for the joined count to reach 0 before it returns, and nobody joins a closed batch.
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

  // Sets the shares of a batch of n tasks (before the batch is opened).
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

  // Wakes sleeping workers after the batch word, awake or stop changed. Taking the mutex
  // between the change and the notify closes the gap between a worker's last check and its
  // wait.
  void wake_all() noexcept {
    { std::lock_guard lock(mutex); }
    start.notify_all();
  }

  // Wakes the workers that sleep or are about to, after a batch opened. sleepers and word
  // are both seq_cst: either this load sees the worker's increment, or the worker's check
  // under the mutex (after its increment) sees the open batch. No sleeper: no mutex, no call.
  void wake_sleepers() noexcept {
    if (sleepers.load(std::memory_order_seq_cst) != 0) wake_all();
  }

  // Polls for an open batch other than `seen`: until the idle spin ends, or — while the pool
  // is held awake — until the awake cap. Returns the batch word (an open new batch, or not).
  std::uint64_t spin_for_batch(std::uint64_t seen) noexcept {
    const Clock::time_point begin = Clock::now();
    for (std::uint32_t i = 1;; ++i) {
      const std::uint64_t w = word.load(std::memory_order_relaxed);
      if (is_new(w, seen) || stop.load(std::memory_order_relaxed)) return w;
      cpu_relax();
      if ((i & 63) == 0) {
        const auto spent = Clock::now() - begin;
        const bool held = awake.load(std::memory_order_relaxed) != 0;
        if (spent > (held ? Clock::duration(kAwakeSpinCap) : Clock::duration(kIdleSpin))) return w;
        // Share the core with whatever else the machine runs (an oversubscribed host).
        if ((i & 1023) == 0) std::this_thread::yield();
      }
    }
  }

  static bool is_new(std::uint64_t w, std::uint64_t seen) noexcept {
    return (w & BatchWord::kOpen) != 0 && BatchWord::batch(w) != seen;
  }

  // Joins the open batch of word `w` if it is still open: one compare-exchange both checks
  // that it is open and counts the worker in, so a worker never holds a batch it did not find
  // open. Acquire: the batch (fn, ctx, shares) the caller wrote before opening it.
  bool join(std::uint64_t w) noexcept {
    const std::uint64_t b = BatchWord::batch(w);
    while ((w & BatchWord::kOpen) != 0 && BatchWord::batch(w) == b) {
      if (word.compare_exchange_weak(w, w + 1, std::memory_order_acquire, std::memory_order_relaxed)) return true;
    }
    return false;
  }

  // Leaves the joined batch. Release: the worker's task writes, before run() returns. The
  // last worker out of a closed batch wakes the caller if it sleeps.
  void leave() noexcept {
    const std::uint64_t before = word.fetch_sub(1, std::memory_order_release);
    if (BatchWord::joined(before) == 1 && (before & BatchWord::kCallerSleeps) != 0) {
      { std::lock_guard lock(mutex); }
      done.notify_one();
    }
  }

  void worker(std::uint32_t self) noexcept {
    std::uint64_t seen = 0;  // batch number of the last batch this worker saw
    for (;;) {
      std::uint64_t w = spin_for_batch(seen);
      while (!is_new(w, seen) && !stop.load(std::memory_order_relaxed)) {
        sleepers.fetch_add(1, std::memory_order_seq_cst);
        {
          std::unique_lock lock(mutex);
          const std::uint32_t opened = awake_opened.load(std::memory_order_relaxed);
          start.wait(lock, [&] {
            return stop.load(std::memory_order_relaxed) || is_new(word.load(std::memory_order_seq_cst), seen) ||
                   awake_opened.load(std::memory_order_relaxed) != opened;
          });
        }
        sleepers.fetch_sub(1, std::memory_order_relaxed);
        w = spin_for_batch(seen);
      }
      if (stop.load(std::memory_order_relaxed)) return;
      seen = BatchWord::batch(w);
      if (PoolWorkerHook hook = worker_hook.load(std::memory_order_relaxed)) hook(self);
      if (!join(w)) continue;  // closed already: the caller ran it
      drain(fn, ctx, self);
      leave();
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
  using detail::BatchWord;
  s.fn = fn;
  s.ctx = ctx;
  s.split(count);
  // Open: no worker has joined (the last batch ended with none), the caller does not sleep.
  s.last_batch = BatchWord::batch(s.last_batch + BatchWord::kBatchUnit);
  s.word.store(s.last_batch | BatchWord::kOpen, std::memory_order_seq_cst);
  s.wake_sleepers();
  s.drain(fn, ctx, 0);
  // Every task is claimed. Close: from here no worker joins, and `joined` workers are each
  // finishing the one task they hold. Acquire: the task writes of workers that already left.
  std::uint64_t w = s.word.fetch_and(~BatchWord::kOpen, std::memory_order_acquire);
  if (BatchWord::joined(w) == 0) return;
  // Poll for as long as a task takes to finish on a running thread, then sleep: a joined
  // worker that was descheduled mid-task needs this core more than the caller's polling does.
  const detail::Clock::time_point begin = detail::Clock::now();
  for (std::uint32_t i = 1;; ++i) {
    detail::cpu_relax();
    if (BatchWord::joined(s.word.load(std::memory_order_acquire)) == 0) return;
    if ((i & 63) == 0 && detail::Clock::now() - begin > detail::kCallerSpin) break;
  }
  w = s.word.fetch_or(BatchWord::kCallerSleeps, std::memory_order_acquire);
  if (BatchWord::joined(w) == 0) return;
  std::unique_lock lock(s.mutex);
  s.done.wait(lock, [&] { return BatchWord::joined(s.word.load(std::memory_order_acquire)) == 0; });
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
