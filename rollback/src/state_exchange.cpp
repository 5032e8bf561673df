// State of a confirmed tick exchanged between peers (state_exchange.h).
#include <lockstep/rollback/state_exchange.h>

#include <lockstep/hash/snapshot_file.h>

#include "session_wire.h"

#include <array>
#include <cstring>

namespace lockstep::rollback {

namespace {
using session_wire::get_u32;
using session_wire::get_u64;
using session_wire::put_u32;
using session_wire::put_u64;
constexpr std::uint8_t kRequest = 1, kChunk = 2, kNone = 3;
constexpr char kMagic[4] = {'L', 'S', 'X', '1'};

void header(std::byte* b, std::uint8_t kind, std::uint64_t tick, std::uint32_t id) {
  std::memcpy(b, kMagic, 4);
  b[4] = static_cast<std::byte>(kind);
  b[5] = b[6] = b[7] = std::byte{0};
  put_u64(b + 8, tick);
  put_u32(b + 16, id);
}
}  // namespace

StateExchange::StateExchange(Transport& transport, std::uint32_t resend_polls)
    : transport_(transport), resend_polls_(resend_polls == 0 ? 1 : resend_polls) {}

void StateExchange::request(std::uint32_t peer, std::uint64_t tick) {
  peer_ = peer;
  tick_ = tick;
  ++id_;
  result_ = Result::Pending;
  bytes_.clear();
  have_.clear();
  missing_ = 0;
  state_ = inspect::State{};
  error_.clear();
  send_request();
}

void StateExchange::send_request() {
  std::array<std::byte, kStateExchangeHeaderBytes> b{};
  header(b.data(), kRequest, tick_, id_);
  (void)transport_.send(peer_, b);  // a lost request is resent by poll()
  since_send_ = 0;
}

void StateExchange::answer(std::uint32_t peer, std::uint64_t tick, std::uint32_t id) {
  ++served_;
  std::array<std::byte, kMaxMessageBytes> b{};
  const Snapshot* s = provider_ ? provider_(tick) : nullptr;
  std::vector<std::byte> file;
  if (s == nullptr || s->empty() || !encode_snapshot(s->view(), file).ok() || file.size() > kStateExchangeMaxBytes) {
    header(b.data(), kNone, tick, id);
    (void)transport_.send(peer, std::span<const std::byte>(b.data(), kStateExchangeHeaderBytes));
    return;
  }
  const auto total = static_cast<std::uint32_t>(file.size());
  for (std::uint32_t off = 0; off < total; off += kStateExchangeChunkBytes) {
    const std::uint32_t n = std::min(kStateExchangeChunkBytes, total - off);
    header(b.data(), kChunk, tick, id);
    put_u32(b.data() + kStateExchangeHeaderBytes, total);
    put_u32(b.data() + kStateExchangeHeaderBytes + 4, off);
    std::memcpy(b.data() + kStateExchangeHeaderBytes + 8, file.data() + off, n);
    (void)transport_.send(peer, std::span<const std::byte>(b.data(), kStateExchangeHeaderBytes + 8 + n));
  }
}

void StateExchange::take_chunk(std::uint64_t tick, std::uint32_t id, const std::byte* body, std::uint32_t size) {
  if (result_ != Result::Pending || tick != tick_ || id != id_ || size < 8) return;  // stale or foreign
  const std::uint32_t total = get_u32(body), off = get_u32(body + 4), n = size - 8;
  if (total == 0 || total > kStateExchangeMaxBytes || off % kStateExchangeChunkBytes != 0 || off >= total ||
      n != std::min(kStateExchangeChunkBytes, total - off) || (!bytes_.empty() && bytes_.size() != total)) {
    result_ = Result::Failed;
    error_ = "state exchange: malformed chunk (total " + std::to_string(total) + ", offset " + std::to_string(off) +
             ", " + std::to_string(n) + " bytes)";
    return;
  }
  if (bytes_.empty()) {
    bytes_.assign(total, std::byte{0});
    const std::uint32_t chunks = (total + kStateExchangeChunkBytes - 1) / kStateExchangeChunkBytes;
    have_.assign(chunks, false);
    missing_ = chunks;
  }
  const std::uint32_t k = off / kStateExchangeChunkBytes;
  if (have_[k]) return;  // duplicate
  have_[k] = true;
  --missing_;
  std::memcpy(bytes_.data() + off, body + 8, n);
  if (missing_ != 0) return;
  const FileStatus st = inspect::decode_state(bytes_, state_, "state of peer " + std::to_string(peer_) + " tick " +
                                                                   std::to_string(tick_));
  if (!st.ok()) {
    result_ = Result::Failed;
    error_ = st.message;
  } else {
    result_ = Result::Received;
  }
}

void StateExchange::poll() {
  std::array<std::byte, kMaxMessageBytes> in{};
  std::uint32_t from = 0;
  while (const std::uint32_t size = transport_.receive(from, in)) {
    if (size < kStateExchangeHeaderBytes || std::memcmp(in.data(), kMagic, 4) != 0) continue;
    const auto kind = std::to_integer<std::uint8_t>(in[4]);
    const std::uint64_t tick = get_u64(in.data() + 8);
    const std::uint32_t id = get_u32(in.data() + 16);
    if (kind == kRequest) {
      answer(from, tick, id);
    } else if (kind == kChunk && from == peer_) {
      take_chunk(tick, id, in.data() + kStateExchangeHeaderBytes, size - kStateExchangeHeaderBytes);
    } else if (kind == kNone && from == peer_ && result_ == Result::Pending && tick == tick_ && id == id_) {
      result_ = Result::Unavailable;
    }
  }
  if (result_ == Result::Pending && ++since_send_ >= resend_polls_) send_request();
}

}  // namespace lockstep::rollback
