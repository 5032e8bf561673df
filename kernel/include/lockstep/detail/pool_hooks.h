#pragma once
// A test seam of the bundled ThreadPool (exec/thread_pool.h), not an API: the kernel's own
// tests use it to stall a worker the way a busy machine does, so "the caller never waits for a
// worker that has not started on a batch" can be asserted without a clock
// (tests/kernel/thread_pool_test.cpp).
#include <cstdint>

namespace lockstep::detail {

// Called by a pool worker (numbered from 1) each time it has seen a new batch, before it
// tries to take part in it. Null (the default): nothing is called. Process-wide; set it only
// while no pool runs a batch.
using PoolWorkerHook = void (*)(std::uint32_t worker) noexcept;
void set_pool_worker_hook(PoolWorkerHook hook) noexcept;

}  // namespace lockstep::detail
