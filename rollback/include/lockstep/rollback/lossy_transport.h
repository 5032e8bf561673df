#pragma once
// LossyTransport: a seeded bad-link emulator stacked on any Transport (docs/rollback.md,
// "Emulating bad links"). Outgoing messages are dropped with probability loss_ppm / 10^6 or
// held back latency ± jitter (per destination: latency_us[peer] overrides the default, which
// makes links asymmetric when the peers are given different settings), then handed to the
// inner transport by pump(now_us). Receiving passes straight through.
//
// Randomness: one xoshiro256** stream seeded by `seed`, three draws per send whatever the
// outcome. Time: whatever clock the caller passes (a game's steady clock, or a simulated
// one). Memory: `capacity` message slots allocated by the constructor; a send that finds
// them all in flight is dropped and counted. send/receive/pump never allocate.
#include <lockstep/math/rng.h>
#include <lockstep/rollback/transport.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace lockstep::rollback {

struct LossyConfig {
  std::uint32_t latency_us = 0;  // default one-way delay added to every outgoing message
  std::uint32_t jitter_us = 0;   // uniform ±, clamped at 0
  std::uint32_t loss_ppm = 0;
  std::uint64_t seed = 1;
  std::uint32_t capacity = 4096;
  // Per destination peer: latency override (0xFFFFFFFF = use latency_us).
  std::array<std::uint32_t, 256> latency_to_us{};
  LossyConfig() { latency_to_us.fill(0xFFFFFFFFu); }
};

struct LossyStats {
  std::uint64_t sent = 0, lost = 0, forwarded = 0, overflowed = 0, inner_failures = 0;
};

class LossyTransport final : public Transport {
 public:
  LossyTransport(Transport& inner, const LossyConfig& config);

  // Forwards every held message whose time has come (call once per frame, before the
  // session's advance, with a clock that never goes back).
  void pump(std::uint64_t now_us) noexcept;

  bool send(std::uint32_t peer, std::span<const std::byte> message) noexcept override;
  std::uint32_t receive(std::uint32_t& from, std::span<std::byte, kMaxMessageBytes> out) noexcept override {
    return inner_.receive(from, out);
  }
  const LossyStats& stats() const noexcept { return stats_; }
  std::uint64_t in_flight() const noexcept { return heap_.size(); }

 private:
  struct Slot {
    std::uint64_t due = 0, seq = 0;
    std::uint32_t to = 0, size = 0;
    std::array<std::byte, kMaxMessageBytes> bytes{};
  };
  bool later(std::uint32_t a, std::uint32_t b) const noexcept;

  Transport& inner_;
  LossyConfig cfg_;
  Rng rng_;
  std::uint64_t now_us_ = 0, seq_ = 0;
  std::vector<Slot> slots_;
  std::vector<std::uint32_t> free_, heap_;
  LossyStats stats_{};
};

}  // namespace lockstep::rollback
