// Runner::copy_to_host / copy_to_canonical: the one "copy a recorded frame, then convert its
// byte order" of every reader and writer of recorded inputs, with exact values: known canonical
// (little-endian) bytes become known host values and back, on every host (big-endian hosts:
// the s390x rows of the determinism matrix). Also the one failure type of opening and
// recording a replay file.
#include <lockstep/replay/open_replay.h>
#include <lockstep/replay/record.h>
#include <lockstep/replay/runner.h>
#include <lockstep/store/component.h>

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

namespace frame_copy_test {

struct WideInput {
  std::uint64_t a;
  std::int32_t b;
  std::uint16_t c[2];
  std::uint8_t d[4];
  std::uint32_t e;
};
LOCKSTEP_COMPONENT(WideInput, a, b, c, d, e);

}  // namespace frame_copy_test

namespace {

using frame_copy_test::WideInput;
using lockstep::replay::Runner;

template <class... T>
std::vector<std::byte> bytes(T... v) {
  return {static_cast<std::byte>(v)...};
}

// Two players' inputs as a recording holds them.
std::vector<std::byte> canonical_frame() {
  std::vector<std::byte> f = bytes(0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01,  // a
                                   0xFE, 0xFF, 0xFF, 0xFF,                          // b = -2
                                   0x22, 0x11, 0x44, 0x33,                          // c
                                   0x01, 0x02, 0x03, 0x04,                          // d
                                   0xBE, 0xBA, 0xFE, 0xCA);                         // e
  const std::vector<std::byte> second = bytes(0xEF, 0xCD, 0xAB, 0x89, 0x67, 0x45, 0x23, 0x01,  // a
                                              0x00, 0x00, 0x00, 0x80,                          // b = INT32_MIN
                                              0xFF, 0x00, 0x00, 0xFF,                          // c
                                              0xA0, 0xB0, 0xC0, 0xD0,                          // d
                                              0x00, 0x00, 0x00, 0x00);                         // e
  f.insert(f.end(), second.begin(), second.end());
  return f;
}

TEST(FrameCopy, RecordedBytesBecomeHostValues) {
  static_assert(sizeof(WideInput) == 24);
  const std::vector<std::byte> canonical = canonical_frame();
  std::vector<std::byte> host(canonical.size() + 3, std::byte{0xAA});
  Runner::copy_to_host(lockstep::describe<WideInput>(), canonical, host);
  WideInput in[2];
  std::memcpy(in, host.data(), sizeof in);
  EXPECT_EQ(in[0].a, 0x0102030405060708ull);
  EXPECT_EQ(in[0].b, -2);
  EXPECT_EQ(in[0].c[0], 0x1122u);
  EXPECT_EQ(in[0].c[1], 0x3344u);
  EXPECT_EQ(in[0].d[0], 1u);
  EXPECT_EQ(in[0].d[3], 4u);
  EXPECT_EQ(in[0].e, 0xCAFEBABEu);
  EXPECT_EQ(in[1].a, 0x0123456789ABCDEFull);
  EXPECT_EQ(in[1].b, INT32_MIN);
  EXPECT_EQ(in[1].c[0], 0x00FFu);
  EXPECT_EQ(in[1].c[1], 0xFF00u);
  EXPECT_EQ(in[1].d[1], 0xB0u);
  EXPECT_EQ(in[1].e, 0u);
  // Only `from.size()` bytes are written.
  for (std::size_t i = canonical.size(); i < host.size(); ++i) EXPECT_EQ(host[i], std::byte{0xAA}) << i;
  // The recorded bytes are untouched.
  EXPECT_EQ(canonical, canonical_frame());
}

TEST(FrameCopy, HostValuesBecomeRecordedBytes) {
  WideInput in[2] = {{0x0102030405060708ull, -2, {0x1122, 0x3344}, {1, 2, 3, 4}, 0xCAFEBABEu},
                     {0x0123456789ABCDEFull, INT32_MIN, {0x00FF, 0xFF00}, {0xA0, 0xB0, 0xC0, 0xD0}, 0}};
  std::vector<std::byte> host(sizeof in);
  std::memcpy(host.data(), in, sizeof in);
  std::vector<std::byte> canonical(host.size());
  Runner::copy_to_canonical(lockstep::describe<WideInput>(), host, canonical);
  EXPECT_EQ(canonical, canonical_frame());
  // The host frame is untouched (it is stepped after being recorded).
  EXPECT_EQ(std::memcmp(host.data(), in, sizeof in), 0);
}

TEST(FrameCopy, EmptyFrameCopiesNothing) {
  std::vector<std::byte> host = bytes(0x11);
  Runner::copy_to_host(lockstep::describe<WideInput>(), {}, host);
  EXPECT_EQ(host, bytes(0x11));
}

TEST(ReplayFailure, OpeningAndRecordingShareOneType) {
  static_assert(std::is_same_v<lockstep::replay::OpenFailure, lockstep::replay::Failure>);
  static_assert(std::is_same_v<lockstep::replay::RecordFailure, lockstep::replay::Failure>);
  lockstep::replay::Failure f;
  EXPECT_TRUE(f.message.empty());
  EXPECT_FALSE(f.file.has_value());
}

}  // namespace
