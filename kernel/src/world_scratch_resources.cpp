// Scratch resources: per-tick working memory owned by the world (docs/kernel.md, "Scratch
// resources"; world.h registerScratch / scratch / beginTick).
#include <lockstep/exec/thread_pool.h>
#include <lockstep/store/world.h>

#include <string_view>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <new>

namespace lockstep {

Status World::register_scratch(std::uint32_t key, const TypeDescriptor& d, std::uint32_t size, std::uint32_t align,
                               std::uint32_t count) noexcept {
  if (lanes_) return lane_refused("register");
  if (key >= detail::kMaxTypeKeys)
    return {ErrorCode::CapacityExceeded, "registerScratch: too many distinct types in this process"};
  if (scratch_res_.find(key) >= 0) return {ErrorCode::AlreadyRegistered, "registerScratch: already registered"};
  if (scratch_res_.used >= detail::ScratchStore::kMax)
    return {ErrorCode::CapacityExceeded, "registerScratch: at most 16 scratch resources per world"};
  if (count == 0) return {ErrorCode::InvalidArgument, "registerScratch: count must be at least 1"};
  if (align > detail::kColumnAlign) return {ErrorCode::InvalidArgument, "registerScratch: alignment above 64"};
  const std::uint64_t bytes = std::uint64_t{size} * count;
  if (bytes > (std::uint64_t{1} << 32))
    return {ErrorCode::CapacityExceeded, "registerScratch: more than 4 GiB in one scratch resource"};
  // Allocated once, at registration (part of building the world); zeroed, 64-byte aligned.
  std::unique_ptr<std::byte[]> block(new (std::nothrow) std::byte[bytes + detail::kColumnAlign]());
  if (!block) return {ErrorCode::CapacityExceeded, "registerScratch: out of memory"};
  // lockstep: allow(pointer-cast) alignment padding only; the address never reaches state or hashes
  const auto base = reinterpret_cast<std::uintptr_t>(block.get());
  const std::uintptr_t pad = (detail::kColumnAlign - base % detail::kColumnAlign) % detail::kColumnAlign;
  detail::ScratchStore::Entry& e = scratch_res_.entries[scratch_res_.used];
  e.key = key;
  e.size = size;
  e.count = count;
  e.type = &d;
  e.data = block.get() + pad;
  scratch_res_.blocks[scratch_res_.used] = std::move(block);
  ++scratch_res_.used;
  scratch_res_.bytes += bytes;
  return Status::Ok();
}

void World::zero_scratch() noexcept {
  // Below this a batch's hand-off costs more than the clearing it shares.
  constexpr std::uint64_t kParallelZeroBytes = 64 * 1024;
  if (executor_ == nullptr || executor_->threads() < 2 || scratch_res_.bytes < kParallelZeroBytes) {
    scratch_res_.zero();
    return;
  }
  // Task t of T clears [t/T, (t+1)/T) of every scratch array, cut at 64-byte lines: the bundled
  // pool hands thread t task t first, and the parallel loops' shares follow the same order (a
  // slot-indexed array's first half is the first half of the rows), so a thread mostly clears
  // lines it wrote itself. Which thread clears which piece is timing; the result is not.
  struct Job {
    detail::ScratchStore* store;
    std::uint32_t tasks;
  } job{&scratch_res_, executor_->threads()};
  executor_->run(
      job.tasks,
      [](void* ctx, std::uint32_t task) noexcept {
        const Job& j = *static_cast<const Job*>(ctx);
        j.store->zero_share(task, j.tasks);
      },
      &job);
}

std::int32_t World::scratchIdByName(const char* name) const noexcept {
  for (std::uint32_t i = 0; i < scratch_res_.used; ++i)
    if (scratch_res_.entries[i].type != nullptr && name != nullptr &&
        std::string_view(scratch_res_.entries[i].type->name) == name)
      return static_cast<std::int32_t>(i);
  return -1;
}

}  // namespace lockstep
