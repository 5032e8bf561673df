#pragma once
// SimNetwork: an in-process, deterministic simulated network for tests and `lockstep netsim`
// (docs/rollback.md, "Simulated network").
//
// Every peer gets a Transport endpoint. A message sent at simulated time `now` is dropped with
// probability loss_ppm / 10^6; otherwise it is delivered at now + latency ± jitter (uniform,
// clamped at 0). With probability duplicate_ppm a second copy travels with its own delay, and
// with probability reorder_ppm a message is held back an extra reorder_delay_us so that later
// messages overtake it (jitter alone also reorders).
//
// Determinism: all randomness comes from one xoshiro256** stream seeded by `seed` and drawn
// in send order, a fixed number of draws per send; time is the simulated clock set with
// advance_to() (never the wall clock); the delivery order is the total order (delivery time,
// send sequence number). Same seed + same calls → same deliveries, on every host.
// Memory: `capacity` message slots and per-peer queues are allocated by the constructor;
// send/receive never allocate. A send that finds every slot in flight is dropped and counted.
#include <lockstep/rollback/transport.h>
#include <lockstep/math/rng.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

namespace lockstep::rollback {

struct NetworkConditions {
  std::uint32_t latency_us = 0;        // one-way base delay
  std::uint32_t jitter_us = 0;         // each message: latency + uniform[-jitter, +jitter], at least 0
  std::uint32_t loss_ppm = 0;          // parts per million of messages dropped
  std::uint32_t duplicate_ppm = 0;     // ... delivered twice
  std::uint32_t reorder_ppm = 0;       // ... held back by reorder_delay_us
  std::uint32_t reorder_delay_us = 0;  // 0: latency_us + jitter_us + 1 ms
};

struct SimNetworkConfig {
  std::uint32_t peers = 2;
  NetworkConditions conditions{};
  std::uint64_t seed = 1;
  std::uint32_t capacity = 8192;  // messages in flight, all peers
  // Asymmetric links: extra one-way delay of messages from peer `from` to peer `to`
  // (extra_latency_us[from][to], peers < 16), added to conditions.latency_us.
  std::uint32_t extra_latency_us[16][16] = {};
};

struct SimNetworkStats {
  std::uint64_t sent = 0;        // send() calls that were accepted (before loss)
  std::uint64_t delivered = 0;   // messages handed out by receive()
  std::uint64_t lost = 0;        // dropped by the loss draw
  std::uint64_t duplicated = 0;  // extra copies created
  std::uint64_t reordered = 0;   // messages held back
  std::uint64_t overflowed = 0;  // dropped because every slot was in flight
  std::uint64_t rejected = 0;    // bad peer id or size
  std::uint64_t max_in_flight = 0;
};

class SimNetwork {
 public:
  explicit SimNetwork(const SimNetworkConfig& config);
  ~SimNetwork();
  SimNetwork(const SimNetwork&) = delete;
  SimNetwork& operator=(const SimNetwork&) = delete;

  std::uint32_t peers() const noexcept { return config_.peers; }
  const SimNetworkConfig& config() const noexcept { return config_; }
  // The transport of `peer` (0..peers-1).
  Transport& endpoint(std::uint32_t peer) noexcept;

  // Moves the simulated clock forward (never backward: earlier values are ignored).
  void advance_to(std::uint64_t now_us) noexcept;
  std::uint64_t now_us() const noexcept { return now_us_; }
  std::uint64_t in_flight() const noexcept { return in_flight_; }
  const SimNetworkStats& stats() const noexcept { return stats_; }

 private:
  class Endpoint;
  struct Slot {
    std::uint64_t deliver_at = 0;
    std::uint64_t seq = 0;
    std::uint32_t from = 0;
    std::uint32_t size = 0;
    std::array<std::byte, kMaxMessageBytes> bytes{};
  };
  bool send_from(std::uint32_t from, std::uint32_t to, std::span<const std::byte> message) noexcept;
  std::uint32_t receive_at(std::uint32_t to, std::uint32_t& from, std::span<std::byte, kMaxMessageBytes> out) noexcept;
  std::uint64_t draw_delay(std::uint32_t from, std::uint32_t to) noexcept;
  void enqueue(std::uint32_t from, std::uint32_t to, std::span<const std::byte> message, std::uint64_t delay) noexcept;

  SimNetworkConfig config_;
  Rng rng_;
  std::uint64_t now_us_ = 0;
  std::uint64_t seq_ = 0;
  std::uint64_t in_flight_ = 0;
  SimNetworkStats stats_{};
  std::vector<Slot> slots_;
  std::vector<std::uint32_t> free_;                  // stack of free slot indices
  std::vector<std::vector<std::uint32_t>> queues_;   // per destination: min-heap of slot indices
  std::vector<std::unique_ptr<Endpoint>> endpoints_;
};

}  // namespace lockstep::rollback
