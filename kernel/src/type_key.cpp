#include <lockstep/store/type_key.h>

#include <atomic>

namespace lockstep::detail {

std::uint32_t next_type_key() noexcept {
  // lockstep: allow(static) process-local type keys; ids in state come from registration order
  static std::atomic<std::uint32_t> counter{0};
  return counter.fetch_add(1, std::memory_order_relaxed);
}

}  // namespace lockstep::detail
