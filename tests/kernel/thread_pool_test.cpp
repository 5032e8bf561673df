// ThreadPool (thread_pool.h): every task of a batch runs exactly once, on any thread count,
// whether the workers sleep between batches or are held awake (AwakeScope) — the polling
// window changes timing only.
#include <lockstep/thread_pool.h>

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
