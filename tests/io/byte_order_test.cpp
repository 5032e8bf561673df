// The one copy of the little-endian integer helpers (io/byte_order.h) and the one checked
// little-endian reader (io/le_reader.h), with exact values: known bytes decode to known values
// and known values encode to known bytes on every host (big-endian hosts: the s390x rows of
// the determinism matrix).
#include <lockstep/hash/snapshot_file.h>
#include <lockstep/io/byte_order.h>
#include <lockstep/io/le_reader.h>

#include <gtest/gtest.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace io = lockstep::io;
using lockstep::ErrorCode;

namespace {

template <class... T>
std::vector<std::byte> bytes(T... v) {
  return {static_cast<std::byte>(v)...};
}

TEST(ByteOrder, PutsLeastSignificantByteFirst) {
  std::array<std::byte, 8> b{};
  io::put_u16(b.data(), 0xA1B2u);
  EXPECT_EQ(std::vector<std::byte>(b.begin(), b.begin() + 2), bytes(0xB2, 0xA1));
  io::put_u32(b.data(), 0x01020304u);
  EXPECT_EQ(std::vector<std::byte>(b.begin(), b.begin() + 4), bytes(0x04, 0x03, 0x02, 0x01));
  io::put_u64(b.data(), 0x0102030405060708ull);
  EXPECT_EQ(std::vector<std::byte>(b.begin(), b.end()), bytes(0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01));
}

TEST(ByteOrder, GetsLeastSignificantByteFirst) {
  const std::vector<std::byte> b = bytes(0xEF, 0xCD, 0xAB, 0x89, 0x67, 0x45, 0x23, 0xF1);
  EXPECT_EQ(io::get_u16(b.data()), 0xCDEFu);
  EXPECT_EQ(io::get_u32(b.data()), 0x89ABCDEFu);
  EXPECT_EQ(io::get_u64(b.data()), 0xF123456789ABCDEFull);
  EXPECT_EQ(io::get_le(b.data(), 0), 0u);
  EXPECT_EQ(io::get_le(b.data(), 1), 0xEFu);
  EXPECT_EQ(io::get_le(b.data(), 3), 0xABCDEFu);
  EXPECT_EQ(io::get_le(b.data(), 8), 0xF123456789ABCDEFull);
}

TEST(ByteOrder, AppendsLittleEndian) {
  std::vector<std::byte> out = bytes(0x55);
  io::append_u16(out, 0x0102u);
  io::append_u32(out, 0x03040506u);
  io::append_u64(out, 0x0708090A0B0C0D0Eull);
  EXPECT_EQ(out, bytes(0x55, 0x02, 0x01, 0x06, 0x05, 0x04, 0x03, 0x0E, 0x0D, 0x0C, 0x0B, 0x0A, 0x09, 0x08, 0x07));
}

TEST(ByteOrder, ElementsRoundTripThroughTheSameBytes) {
  // element_to_le / element_from_le are built on the same helpers: host value -> LE bytes -> host value.
  const std::uint32_t v = 0xDEADBEEFu;
  std::byte le[4], back[4];
  io::element_to_le(le, reinterpret_cast<const std::byte*>(&v), 4);
  EXPECT_EQ(std::vector<std::byte>(le, le + 4), bytes(0xEF, 0xBE, 0xAD, 0xDE));
  io::element_from_le(back, le, 4);
  std::uint32_t r = 0;
  std::memcpy(&r, back, 4);
  EXPECT_EQ(r, v);
}

// ---- LeReader ---------------------------------------------------------------------------

TEST(LeReader, ReadsKnownBytesAsKnownValues) {
  const std::vector<std::byte> b = bytes(0x7F,                                            // u8
                                         0x34, 0x12,                                      // u16
                                         0x78, 0x56, 0x34, 0x12,                          // u32
                                         0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01,  // u64
                                         0x02, 0x00, 0x00, 0x00, 'h', 'i');                // str "hi"
  io::LeReader r(b, "mem");
  std::uint8_t a = 0;
  std::uint16_t c = 0;
  std::uint32_t d = 0;
  std::uint64_t e = 0;
  std::string s;
  ASSERT_TRUE(r.num(a, "a") && r.num(c, "c") && r.num(d, "d") && r.num(e, "e") && r.str(s, 8, "name"));
  EXPECT_EQ(a, 0x7Fu);
  EXPECT_EQ(c, 0x1234u);
  EXPECT_EQ(d, 0x12345678u);
  EXPECT_EQ(e, 0x0102030405060708ull);
  EXPECT_EQ(s, "hi");
  EXPECT_EQ(r.pos(), 21u);
  EXPECT_EQ(r.remaining(), 0u);
  EXPECT_TRUE(r.ok());
}

TEST(LeReader, TruncationNamesFileOffsetAndWhatWasExpected) {
  const std::vector<std::byte> b = bytes(0x01, 0x02, 0x03);
  io::LeReader r(b, "f.bin");
  std::uint16_t x = 0;
  std::uint32_t y = 0;
  ASSERT_TRUE(r.num(x, "x"));
  EXPECT_FALSE(r.num(y, "the count"));
  EXPECT_EQ(r.status().code, ErrorCode::Corrupt);
  EXPECT_EQ(r.status().offset, 2u);
  EXPECT_EQ(r.status().message, "f.bin: byte 2: truncated: expected the count (4 bytes), 1 remain");
  // The first error stays; later reads fail without changing it.
  EXPECT_FALSE(r.num(x, "x"));
  EXPECT_EQ(r.status().message, "f.bin: byte 2: truncated: expected the count (4 bytes), 1 remain");
}

TEST(LeReader, NamesRefuseNulTextKeepsIt) {
  const std::vector<std::byte> b = bytes(0x03, 0x00, 0x00, 0x00, 'a', 0x00, 'b');
  std::string s;
  io::LeReader names(b, "f");
  EXPECT_FALSE(names.str(s, 16, "type name"));
  EXPECT_EQ(names.status().offset, 0u);
  EXPECT_EQ(names.status().message, "f: byte 0: type name 'a...' contains a NUL byte");
  io::LeReader text(b, "f");
  ASSERT_TRUE(text.text(s, 16, "report"));
  EXPECT_EQ(s, std::string("a\0b", 3));
}

TEST(LeReader, LengthAboveTheLimitIsReportedAtTheLength) {
  const std::vector<std::byte> b = bytes(0xEE, 0x05, 0x00, 0x00, 0x00, 'a', 'b', 'c', 'd', 'e');
  io::LeReader r(b, "f");
  std::uint8_t skip = 0;
  std::string s;
  ASSERT_TRUE(r.num(skip, "skip"));
  EXPECT_FALSE(r.text(s, 4, "label"));
  EXPECT_EQ(r.status().message, "f: byte 1: expected label of at most 4 bytes, length is 5");
}

TEST(LeReader, CarriesTheCallersStatusType) {
  // inspect/'s bundles read with hash/'s FileStatus: the same messages.
  const std::vector<std::byte> b = bytes(0x01);
  io::BasicLeReader<lockstep::FileStatus> r(b, "x.lsbundle");
  std::uint64_t v = 0;
  EXPECT_FALSE(r.num(v, "tick"));
  EXPECT_EQ(r.status().code, ErrorCode::Corrupt);
  EXPECT_EQ(r.status().message, "x.lsbundle: byte 0: truncated: expected tick (8 bytes), 1 remain");
  const lockstep::FileStatus st = io::file_error<lockstep::FileStatus>("x.lsbundle", ErrorCode::Mismatch, 9, "expected v3");
  EXPECT_EQ(st.code, ErrorCode::Mismatch);
  EXPECT_EQ(st.offset, 9u);
  EXPECT_EQ(st.message, "x.lsbundle: byte 9: expected v3");
}

}  // namespace
