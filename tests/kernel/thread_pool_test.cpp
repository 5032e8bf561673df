// ThreadPool (thread_pool.h): every task of a batch runs exactly once, on any thread count,
// whether the workers sleep between batches or are held awake (AwakeScope) — the polling
// window changes timing only.
#include <lockstep/detail/pool_hooks.h>
#include <lockstep/exec/thread_pool.h>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

using namespace lockstep;

namespace {

// Runs `batches` batches of `tasks` tasks; every task adds its batch number to its own slot, so
// a task run twice or skipped shows as a wrong sum in its slot.
void run_batches(ThreadPool& pool, std::uint32_t batches, std::uint32_t tasks, std::vector<std::uint64_t>& sums) {
  sums.assign(tasks, 0);
  for (std::uint32_t b = 1; b <= batches; ++b) {
    auto task = [&](std::uint32_t i) noexcept { sums[i] += b; };
    pool.for_each(tasks, task);
  }
}

void expect_each_task_once(const std::vector<std::uint64_t>& sums, std::uint32_t batches) {
  const std::uint64_t want = std::uint64_t{batches} * (batches + 1) / 2;
  for (std::size_t i = 0; i < sums.size(); ++i) ASSERT_EQ(sums[i], want) << "task " << i;
}

}  // namespace

TEST(ParallelThreadPool, EveryTaskOnceWhetherWorkersSleepOrAreHeldAwake) {
  for (const std::uint32_t threads : {1u, 2u, 4u, 8u}) {
    SCOPED_TRACE(threads);
    ThreadPool pool(threads);
    EXPECT_EQ(pool.threads(), threads);
    std::vector<std::uint64_t> sums;
    // Sleeping workers: a pause longer than the idle polling window before each batch.
    sums.assign(37, 0);
    for (std::uint32_t b = 1; b <= 20; ++b) {
      std::this_thread::sleep_for(std::chrono::microseconds(200));
      auto task = [&](std::uint32_t i) noexcept { sums[i] += b; };
      pool.for_each(37, task);
    }
    expect_each_task_once(sums, 20);
    // Held awake, nested scopes: many short batches back to back.
    {
      const ThreadPool::AwakeScope outer(&pool);
      const ThreadPool::AwakeScope inner(&pool);
      run_batches(pool, 2000, 9, sums);
      expect_each_task_once(sums, 2000);
    }
    // Released again: batches still complete.
    run_batches(pool, 50, 64, sums);
    expect_each_task_once(sums, 50);
  }
}

TEST(ParallelThreadPool, AScopeWithoutAPoolOrLeftOpenIsHarmless) {
  { const ThreadPool::AwakeScope none(nullptr); }
  ThreadPool pool(2);
  pool.hold_awake();  // never released: the worker stops polling after its cap and sleeps
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  std::vector<std::uint64_t> sums;
  run_batches(pool, 10, 5, sums);
  expect_each_task_once(sums, 10);
  // The destructor stops and joins the worker whatever the scope state.
}

// Every thread owns a contiguous share of a batch and then takes from the others': batches
// smaller than the thread count (empty shares), uneven splits and tasks of very unequal length
// (one share finishes long before another, so its thread must take the rest) still run every
// task exactly once.
TEST(ParallelThreadPool, SharesOfAnySizeAndUnevenTasksRunEveryTaskOnce) {
  for (const std::uint32_t threads : {2u, 3u, 8u}) {
    SCOPED_TRACE(threads);
    ThreadPool pool(threads);
    const ThreadPool::AwakeScope awake(&pool);
    for (std::uint32_t tasks = 1; tasks <= 20; ++tasks) {
      SCOPED_TRACE(tasks);
      std::vector<std::uint64_t> sums;
      run_batches(pool, 30, tasks, sums);
      expect_each_task_once(sums, 30);
    }
    std::vector<std::atomic<std::uint32_t>> runs(64);
    auto uneven = [&](std::uint32_t i) noexcept {
      if (i == 0) std::this_thread::sleep_for(std::chrono::milliseconds(5));  // the first share's first task
      runs[i].fetch_add(1, std::memory_order_relaxed);
    };
    for (std::uint32_t b = 0; b < 5; ++b) pool.for_each(64, uneven);
    for (std::uint32_t i = 0; i < 64; ++i) EXPECT_EQ(runs[i].load(), 5u) << "task " << i;
  }
}

namespace {

// Workers stalled on their first sight of a batch, before they take part in it: what a
// worker descheduled by a busy machine looks like to the caller, made deterministic with the
// pool's test seam (detail/pool_hooks.h). The 10 s bound only breaks the deadlock of a pool
// whose caller waits for such a worker, so that the test fails instead of hanging.
struct Stall {
  std::mutex mutex;
  std::condition_variable cv;
  std::vector<bool> stalled;  // per worker: its first sight of a batch has happened
  std::uint32_t arrived = 0;
  bool release = false;
  bool gave_up = false;  // a worker waited 10 s: the caller did not finish without it
};
Stall* g_stall = nullptr;

void stall_first_sight(std::uint32_t worker) noexcept {
  Stall& s = *g_stall;
  std::unique_lock lock(s.mutex);
  if (s.stalled[worker]) return;
  s.stalled[worker] = true;
  ++s.arrived;
  s.cv.notify_all();
  if (!s.cv.wait_for(lock, std::chrono::seconds(10), [&] { return s.release; })) s.gave_up = true;
}

}  // namespace

// A worker that has seen a batch but not started on it holds nothing: the caller runs every
// task itself and returns without waiting for it (before, run() waited until every worker had
// been scheduled, looked at the batch and left it — a descheduled worker held the tick for a
// scheduler time slice). Exact answers: every task once per batch, all on the caller while the
// workers are stalled, and the pool still right once they are released.
TEST(ParallelThreadPool, TheCallerNeverWaitsForAWorkerThatHasNotStarted) {
  for (const std::uint32_t threads : {2u, 4u}) {
    SCOPED_TRACE(threads);
    Stall stall;
    stall.stalled.assign(threads, false);
    g_stall = &stall;
    detail::set_pool_worker_hook(&stall_first_sight);
    {
      ThreadPool pool(threads);
      const std::thread::id caller = std::this_thread::get_id();
      constexpr std::uint32_t kTasks = 64;
      std::vector<std::uint64_t> sums(kTasks, 0);
      std::vector<std::thread::id> ran_by(kTasks);
      std::uint32_t not_on_caller = 0;
      for (std::uint32_t b = 1; b <= 100; ++b) {
        auto task = [&](std::uint32_t i) noexcept {
          // The first batch stays open until every worker has seen it and stalled: task 0 is
          // the head of the caller's own share, so the caller runs it before any other.
          if (b == 1 && i == 0) {
            std::unique_lock lock(stall.mutex);
            stall.cv.wait(lock, [&] { return stall.arrived == threads - 1; });
          }
          sums[i] += b;
          ran_by[i] = std::this_thread::get_id();
        };
        pool.for_each(kTasks, task);
        for (std::uint32_t i = 0; i < kTasks; ++i) not_on_caller += ran_by[i] != caller ? 1u : 0u;
      }
      {
        const std::lock_guard lock(stall.mutex);
        EXPECT_FALSE(stall.gave_up) << "run() waited for a worker that had not started on the batch";
        stall.release = true;
      }
      stall.cv.notify_all();
      EXPECT_EQ(not_on_caller, 0u);
      expect_each_task_once(sums, 100);
      // Released, the workers take part again; a batch they saw but never joined is not run twice.
      run_batches(pool, 200, 37, sums);
      expect_each_task_once(sums, 200);
    }
    detail::set_pool_worker_hook(nullptr);
    g_stall = nullptr;
  }
}
