// ThreadPool (thread_pool.h): every task of a batch runs exactly once, on any thread count,
// whether the workers sleep between batches or are held awake (AwakeScope) — the polling
// window changes timing only.
#include <lockstep/exec/thread_pool.h>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
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
