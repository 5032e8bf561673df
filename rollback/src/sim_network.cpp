// SimNetwork: deterministic in-process network (replay/sim_network.h).
#include <lockstep/rollback/sim_network.h>

#include <algorithm>
#include <cstring>

namespace lockstep::rollback {

class SimNetwork::Endpoint final : public Transport {
 public:
  Endpoint(SimNetwork& net, std::uint32_t id) noexcept : net_(net), id_(id) {}
  bool send(std::uint32_t peer, std::span<const std::byte> message) noexcept override {
    return net_.send_from(id_, peer, message);
  }
  std::uint32_t receive(std::uint32_t& from, std::span<std::byte, kMaxMessageBytes> out) noexcept override {
    return net_.receive_at(id_, from, out);
  }

 private:
  SimNetwork& net_;
  std::uint32_t id_;
};

SimNetwork::SimNetwork(const SimNetworkConfig& config) : config_(config), rng_(config.seed) {
  if (config_.peers == 0) config_.peers = 1;
  if (config_.capacity == 0) config_.capacity = 1;
  slots_.resize(config_.capacity);
  free_.reserve(config_.capacity);
  for (std::uint32_t i = config_.capacity; i > 0; --i) free_.push_back(i - 1);  // pops 0, 1, 2, ...
  queues_.resize(config_.peers);
  for (auto& q : queues_) q.reserve(config_.capacity);
  for (std::uint32_t p = 0; p < config_.peers; ++p) endpoints_.push_back(std::make_unique<Endpoint>(*this, p));
}

SimNetwork::~SimNetwork() = default;

Transport& SimNetwork::endpoint(std::uint32_t peer) noexcept {
  return *endpoints_[peer < config_.peers ? peer : 0];
}

void SimNetwork::advance_to(std::uint64_t now_us) noexcept {
  if (now_us > now_us_) now_us_ = now_us;
}

std::uint64_t SimNetwork::draw_delay(std::uint32_t from, std::uint32_t to) noexcept {
  const NetworkConditions& c = config_.conditions;
  const std::int64_t j = static_cast<std::int64_t>(c.jitter_us);
  const std::int64_t extra = from < 16 && to < 16 ? config_.extra_latency_us[from][to] : 0;
  const std::int64_t d = static_cast<std::int64_t>(c.latency_us) + extra + rng_.range(-j, j);
  return d < 0 ? 0 : static_cast<std::uint64_t>(d);
}

void SimNetwork::enqueue(std::uint32_t from, std::uint32_t to, std::span<const std::byte> message,
                         std::uint64_t delay) noexcept {
  if (free_.empty()) {
    ++stats_.overflowed;
    return;
  }
  const std::uint32_t index = free_.back();
  free_.pop_back();
  Slot& s = slots_[index];
  s.deliver_at = now_us_ + delay;
  s.seq = seq_++;
  s.from = from;
  s.size = static_cast<std::uint32_t>(message.size());
  std::memcpy(s.bytes.data(), message.data(), message.size());
  auto& q = queues_[to];
  q.push_back(index);  // capacity reserved: never reallocates
  // Heap order: the root is the earliest (deliver_at, seq); seq is unique, so it is total.
  std::push_heap(q.begin(), q.end(), [this](std::uint32_t a, std::uint32_t b) noexcept {
    const Slot& x = slots_[a];
    const Slot& y = slots_[b];
    return x.deliver_at != y.deliver_at ? x.deliver_at > y.deliver_at : x.seq > y.seq;
  });
  ++in_flight_;
  stats_.max_in_flight = std::max(stats_.max_in_flight, in_flight_);
}

bool SimNetwork::send_from(std::uint32_t from, std::uint32_t to, std::span<const std::byte> message) noexcept {
  if (to >= config_.peers || to == from || message.empty() || message.size() > kMaxMessageBytes) {
    ++stats_.rejected;
    return false;
  }
  ++stats_.sent;
  const NetworkConditions& c = config_.conditions;
  // A fixed number of draws per send, whatever the outcome, so that one knob does not shift
  // the random stream the others see.
  const bool lost = rng_.chance(c.loss_ppm, 1000000);
  const std::uint64_t delay = draw_delay(from, to);
  const bool duplicate = rng_.chance(c.duplicate_ppm, 1000000);
  const std::uint64_t dup_delay = draw_delay(from, to);
  const bool reorder = rng_.chance(c.reorder_ppm, 1000000);
  if (lost) {
    ++stats_.lost;
    return true;  // the sender cannot tell
  }
  const std::uint64_t hold =
      c.reorder_delay_us != 0 ? c.reorder_delay_us : std::uint64_t{c.latency_us} + c.jitter_us + 1000;
  if (reorder) ++stats_.reordered;
  enqueue(from, to, message, delay + (reorder ? hold : 0));
  if (duplicate) {
    ++stats_.duplicated;
    enqueue(from, to, message, dup_delay);
  }
  return true;
}

std::uint32_t SimNetwork::receive_at(std::uint32_t to, std::uint32_t& from,
                                     std::span<std::byte, kMaxMessageBytes> out) noexcept {
  if (to >= config_.peers) return 0;
  auto& q = queues_[to];
  if (q.empty() || slots_[q.front()].deliver_at > now_us_) return 0;
  std::pop_heap(q.begin(), q.end(), [this](std::uint32_t a, std::uint32_t b) noexcept {
    const Slot& x = slots_[a];
    const Slot& y = slots_[b];
    return x.deliver_at != y.deliver_at ? x.deliver_at > y.deliver_at : x.seq > y.seq;
  });
  const std::uint32_t index = q.back();
  q.pop_back();
  const Slot& s = slots_[index];
  from = s.from;
  const std::uint32_t size = s.size;
  std::memcpy(out.data(), s.bytes.data(), size);
  free_.push_back(index);
  --in_flight_;
  ++stats_.delivered;
  return size;
}

}  // namespace lockstep::rollback
