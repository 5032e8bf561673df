// The session's 40-byte common message header (wire format v4, docs/rollback.md "Wire
// format"): one encode and one decode, with exact bytes. The struct is private to the rollback
// module (rollback/src/session_wire.h); this test reads that header directly.
#include "../../rollback/src/session_wire.h"

#include <gtest/gtest.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace {

using namespace lockstep::rollback::session_wire;

template <class... T>
std::vector<std::byte> bytes(T... v) {
  return {static_cast<std::byte>(v)...};
}

// type 1 · version 6 · sender 1 · players 2 · session 0x0A0B0C0D · tick 0x0102030405060708 ·
// incarnation 0x11223344 · gone 0x0005 · advantage -3 · clock 0x55667788 · echo none ·
// held 0x000000FF · flags 1 · take-backs 0x2A · 0 0
std::vector<std::byte> known_header() {
  return bytes(0x01, 0x06, 0x01, 0x02,                          //
               0x0D, 0x0C, 0x0B, 0x0A,                          // session id
               0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01,  // tick
               0x44, 0x33, 0x22, 0x11,                          // incarnation
               0x05, 0x00,                                      // gone
               0xFD, 0xFF,                                      // advantage -3
               0x88, 0x77, 0x66, 0x55,                          // clock
               0xFF, 0xFF, 0xFF, 0xFF,                          // echo: none
               0xFF, 0x00, 0x00, 0x00,                          // echo held
               0x01, 0x2A, 0x00, 0x00);                         // flags, take-backs, 2 zero bytes
}

MessageHeader known_fields() {
  MessageHeader h;
  h.type = kMsgInput;
  h.sender = 1;
  h.players = 2;
  h.session_id = 0x0A0B0C0Du;
  h.tick = 0x0102030405060708ull;
  h.incarnation = 0x11223344u;
  h.gone = 5;
  h.advantage = -3;
  h.clock = 0x55667788u;
  h.echo = kNoEcho;
  h.echo_held = 0xFF;
  h.flags = kFlagAuthenticated;
  h.takebacks = 0x2A;
  return h;
}

TEST(SessionHeader, EncodesExactBytes) {
  std::array<std::byte, kHeaderBytes> out{};
  out.fill(std::byte{0xEE});
  encode_header(known_fields(), out.data());
  EXPECT_EQ(std::vector<std::byte>(out.begin(), out.end()), known_header());
}

TEST(SessionHeader, DecodesExactFields) {
  std::vector<std::byte> in = known_header();
  ASSERT_EQ(in.size(), kHeaderBytes);
  // The two bytes after the take-back count are not read (a receiver never checked them).
  in[38] = in[39] = std::byte{0x7F};
  const MessageHeader h = decode_header(in.data());
  const MessageHeader want = known_fields();
  EXPECT_EQ(h.type, want.type);
  EXPECT_EQ(h.version, kWireVersion);
  EXPECT_EQ(h.sender, want.sender);
  EXPECT_EQ(h.players, want.players);
  EXPECT_EQ(h.session_id, want.session_id);
  EXPECT_EQ(h.tick, want.tick);
  EXPECT_EQ(h.incarnation, want.incarnation);
  EXPECT_EQ(h.gone, want.gone);
  EXPECT_EQ(h.advantage, -3);
  EXPECT_EQ(h.clock, want.clock);
  EXPECT_EQ(h.echo, kNoEcho);
  EXPECT_EQ(h.echo_held, want.echo_held);
  EXPECT_EQ(h.flags, kFlagAuthenticated);
  EXPECT_EQ(h.takebacks, 0x2A);
}

TEST(SessionHeader, AdvantageExtremesRoundTrip) {
  for (const std::int16_t adv : {std::int16_t{-32767}, std::int16_t{-1}, std::int16_t{0}, std::int16_t{32767}}) {
    MessageHeader h = known_fields();
    h.advantage = adv;
    std::array<std::byte, kHeaderBytes> out{};
    encode_header(h, out.data());
    EXPECT_EQ(decode_header(out.data()).advantage, adv);
  }
}

}  // namespace
