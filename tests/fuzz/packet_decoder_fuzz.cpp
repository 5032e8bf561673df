// libFuzzer target for the rollback network input: the UDP frame decoder (rollback/packet.h)
// and the session's message parser behind it. Invariants (a violation traps):
//   * decode_packet never reads outside the bytes; what it accepts re-encodes to the very
//     same bytes (the frame is canonical) and carries 1..kMaxMessageBytes bytes;
//   * a session fed the bytes as a message from a peer neither crashes nor allocates, counts
//     the message, and ends up either healthy or with one of its documented errors;
//   * the authenticated frame (wire version 6): one input in three is signed here with the
//     documented construction (BLAKE2b-128 keyed with the match key, personalization
//     "lockstep-msg-v3", over [receiver u8] || the message up to its MAC), written apart from
//     the session's code: the fuzzer explores the parser behind the MAC, and a message signed
//     this way and claiming the one sender that has a key here (peer 1) is never dropped as
//     unauthentic; one in three is unsigned and must never be parsed.
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

#include <sodium.h>

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
  // Variant by the last byte: unauthenticated; authenticated and signed here; authenticated
  // and unsigned (must be dropped at the MAC).
  replay::SimConfig config;
  config.players = 2;
  replay::Runner runner(fixtures::duel_sim(), config);
  OneMessage net;
  const std::size_t n = std::min<std::size_t>(size, kMaxMessageBytes);
  std::array<std::byte, kMaxMessageBytes> signed_copy{};
  if (n != 0) std::memcpy(signed_copy.data(), data, n);
  const int mode = size > 0 ? data[size - 1] % 3 : 0;
  const MatchKey key = insecure_test_key(0);
  constexpr std::size_t kTag = 16;
  if (mode == 1 && n >= 40 + 24) {
    static const bool ready = sodium_init() >= 0;
    if (!ready) __builtin_trap();
    static const unsigned char personal[16] = {'l', 'o', 'c', 'k', 's', 't', 'e', 'p', '-', 'm', 's', 'g', '-', 'v', '3', 0};
    crypto_generichash_blake2b_state st;
    crypto_generichash_blake2b_init_salt_personal(&st, key.bytes.data(), key.bytes.size(), kTag, nullptr, personal);
    const unsigned char receiver = 0;
    crypto_generichash_blake2b_update(&st, &receiver, 1);
    crypto_generichash_blake2b_update(&st, reinterpret_cast<const unsigned char*>(signed_copy.data()), n - kTag);
    crypto_generichash_blake2b_final(&st, reinterpret_cast<unsigned char*>(signed_copy.data() + n - kTag), kTag);
  }
  net.message = std::span<const std::byte>(signed_copy.data(), n);
  SessionConfig sc = SessionConfig::one_player_per_peer(2, 2, 0);
  sc.input_delay = 2;
  sc.max_prediction = 8;
  sc.hash_interval = 4;
  sc.sync_roundtrips = size > 0 && (data[0] & 1) != 0 ? 2 : 0;
  sc.security = mode == 0 ? WireSecurity::Unauthenticated : WireSecurity::Authenticated;
  sc.match_key = key;
  RollbackSession s(runner, sc, &net);
  if (!s.status().ok()) __builtin_trap();
  const Status st = s.poll();
  if (!net.message.empty() && s.stats().messages_received != 1) __builtin_trap();
  // Signed with the right key, claiming the authenticated mode (byte 36, bit 0) and claiming
  // peer 1 as its sender (byte 2): never refused as unauthentic. A claimed sender with no key
  // here (this peer, or one past the match) cannot verify — per-peer keys are looked up by the
  // claimed sender — so it is refused at the MAC. Unsigned: always refused before the parser.
  const bool claims_auth = n > 36 && (std::to_integer<std::uint8_t>(signed_copy[36]) & 1u) != 0;
  const bool claims_keyed_sender = n > 2 && std::to_integer<std::uint8_t>(signed_copy[2]) == 1;
  if (mode == 1 && n >= 40 + 24 && claims_auth && claims_keyed_sender && s.stats().dropped_auth != 0)
    __builtin_trap();
  if (mode == 1 && n >= 40 + 24 && claims_auth && !claims_keyed_sender && s.stats().dropped_auth == 0)
    __builtin_trap();
  if (mode == 2 && n >= 40 + 24 && s.stats().malformed + s.stats().dropped_auth == 0) __builtin_trap();
  if (!st.ok() && st.code() != ErrorCode::Mismatch) __builtin_trap();  // expelled / rejected only
  std::array<std::byte, 2> pad{};
  if (s.status().ok() && s.wants_local_input(0) && !s.add_local_input(0, pad).ok()) __builtin_trap();
  if (s.status().ok() && !s.advance().ok()) __builtin_trap();
  return 0;
}
