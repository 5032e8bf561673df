// LossyTransport (rollback/lossy_transport.h).
#include <lockstep/rollback/lossy_transport.h>

#include <algorithm>
#include <cstring>

namespace lockstep::rollback {

LossyTransport::LossyTransport(Transport& inner, const LossyConfig& config)
    : inner_(inner), cfg_(config), rng_(config.seed) {
  if (cfg_.capacity == 0) cfg_.capacity = 1;
  slots_.resize(cfg_.capacity);
  free_.reserve(cfg_.capacity);
  heap_.reserve(cfg_.capacity);
  for (std::uint32_t i = cfg_.capacity; i > 0; --i) free_.push_back(i - 1);
}

// Min-heap on (due, seq): seq is unique, so the order is total and reproducible.
bool LossyTransport::later(std::uint32_t a, std::uint32_t b) const noexcept {
  const Slot& x = slots_[a];
  const Slot& y = slots_[b];
  return x.due != y.due ? x.due > y.due : x.seq > y.seq;
}

bool LossyTransport::send(std::uint32_t peer, std::span<const std::byte> message) noexcept {
  if (message.empty() || message.size() > kMaxMessageBytes) return false;
  ++stats_.sent;
  const bool lost = rng_.chance(cfg_.loss_ppm, 1000000);
  const std::uint32_t base = peer < cfg_.latency_to_us.size() && cfg_.latency_to_us[peer] != 0xFFFFFFFFu
                                 ? cfg_.latency_to_us[peer]
                                 : cfg_.latency_us;
  const std::int64_t j = cfg_.jitter_us;
  const std::int64_t d = static_cast<std::int64_t>(base) + rng_.range(-j, j);
  rng_.next_u64();  // third draw: reserved, keeps the stream shape if an option is added
  if (lost) {
    ++stats_.lost;
    return true;  // the sender cannot tell
  }
  if (free_.empty()) {
    ++stats_.overflowed;
    return true;
  }
  const std::uint32_t i = free_.back();
  free_.pop_back();
  Slot& s = slots_[i];
  s.due = now_us_ + static_cast<std::uint64_t>(d < 0 ? 0 : d);
  s.seq = seq_++;
  s.to = peer;
  s.size = static_cast<std::uint32_t>(message.size());
  std::memcpy(s.bytes.data(), message.data(), message.size());
  heap_.push_back(i);
  std::push_heap(heap_.begin(), heap_.end(), [this](std::uint32_t a, std::uint32_t b) { return later(a, b); });
  return true;
}

void LossyTransport::pump(std::uint64_t now_us) noexcept {
  if (now_us > now_us_) now_us_ = now_us;
  while (!heap_.empty() && slots_[heap_.front()].due <= now_us_) {
    std::pop_heap(heap_.begin(), heap_.end(), [this](std::uint32_t a, std::uint32_t b) { return later(a, b); });
    const std::uint32_t i = heap_.back();
    heap_.pop_back();
    const Slot& s = slots_[i];
    if (inner_.send(s.to, std::span<const std::byte>(s.bytes.data(), s.size))) {
      ++stats_.forwarded;
    } else {
      ++stats_.inner_failures;
    }
    free_.push_back(i);
  }
}

}  // namespace lockstep::rollback
