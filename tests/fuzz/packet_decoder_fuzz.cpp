// libFuzzer target for the rollback network input: the UDP frame decoder (rollback/packet.h)
// and the session's message parser behind it. Invariants (a violation traps):
//   * decode_packet never reads outside the bytes; what it accepts re-encodes to the very
//     same bytes (the frame is canonical) and carries 1..kMaxMessageBytes bytes;
//   * a session fed the bytes as a message from a peer neither crashes nor allocates, counts
//     the message, and ends up either healthy or with one of its documented errors.
#include <lockstep/fixtures/fixtures.h>
#include <lockstep/replay/runner.h>
#include <lockstep/rollback/packet.h>
#include <lockstep/rollback/session.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>

namespace {

using namespace lockstep;
using namespace lockstep::rollback;

class OneMessage final : public Transport {
 public:
  std::span<const std::byte> message;
  bool delivered = false;
  bool send(std::uint32_t, std::span<const std::byte>) noexcept override { return true; }
  std::uint32_t receive(std::uint32_t& from, std::span<std::byte, kMaxMessageBytes> out) noexcept override {
    if (delivered || message.empty()) return 0;
    delivered = true;
    from = 1;
    const std::size_t n = std::min<std::size_t>(message.size(), kMaxMessageBytes);
    std::memcpy(out.data(), message.data(), n);
    return static_cast<std::uint32_t>(n);
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::span<const std::byte> bytes(reinterpret_cast<const std::byte*>(data), size);
  // The frame decoder, with the session id and peer count the frame claims (to get past the
  // early checks) and with fixed ones.
  for (int variant = 0; variant < 2; ++variant) {
    std::uint32_t session = 77, peers = 4;
    if (variant == 1 && size >= 8) {
      session = static_cast<std::uint32_t>(data[4]) | static_cast<std::uint32_t>(data[5]) << 8 |
                static_cast<std::uint32_t>(data[6]) << 16 | static_cast<std::uint32_t>(data[7]) << 24;
      peers = 256;
    }
    const DecodedPacket d = decode_packet(bytes, session, peers);
    if (d.error != PacketError::None) continue;
    if (d.message.empty() || d.message.size() > kMaxMessageBytes || d.sender >= peers) __builtin_trap();
    std::array<std::byte, kMaxPacketBytes> again{};
    const std::uint32_t n = encode_packet(d.sender, d.session_id, d.message, again);
    if (n != size || std::memcmp(again.data(), data, size) != 0) __builtin_trap();
  }
  // The session's parser: the bytes as one message from peer 1 of a 2-peer duel session.
  replay::SimConfig config;
  config.players = 2;
  replay::Runner runner(fixtures::duel_sim(), config);
  OneMessage net;
  net.message = bytes.first(std::min<std::size_t>(size, kMaxMessageBytes));
  SessionConfig sc = SessionConfig::one_player_per_peer(2, 2, 0);
  sc.input_delay = 2;
  sc.max_prediction = 8;
  sc.hash_interval = 4;
  sc.sync_roundtrips = size > 0 && (data[0] & 1) != 0 ? 2 : 0;
  RollbackSession s(runner, sc, &net);
  if (!s.status().ok()) __builtin_trap();
  const Status st = s.poll();
  if (!net.message.empty() && s.stats().messages_received != 1) __builtin_trap();
  if (!st.ok() && st.code() != ErrorCode::Mismatch) __builtin_trap();  // expelled / rejected only
  std::array<std::byte, 2> pad{};
  if (s.status().ok() && s.wants_local_input(0) && !s.add_local_input(0, pad).ok()) __builtin_trap();
  if (s.status().ok() && !s.advance().ok()) __builtin_trap();
  return 0;
}
