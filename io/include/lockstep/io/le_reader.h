#pragma once
// The one checked little-endian reader of the file formats (the snapshot codec here, desync
// bundles in inspect/): a cursor over a byte span. Every length is checked against the bytes
// that remain before anything is allocated; the first error keeps the byte offset and what was
// expected ("<file>: byte <offset>: <what>"), and every later read fails without changing it.
//
// `Status` is the caller's status type (io's CodecStatus, or hash/'s FileStatus for inspect/):
// anything with `code`, `offset`, `message` and `ok()`.
#include <lockstep/io/byte_order.h>
#include <lockstep/io/snapshot_codec.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace lockstep::io {

// The error of a whole-file check (size, preamble, checksum) before a reader exists:
// "<file>: byte <offset>: <what>".
template <class Status = CodecStatus>
Status file_error(std::string_view file, ErrorCode code, std::uint64_t offset, const std::string& what) {
  Status st;
  st.code = code;
  st.offset = offset;
  st.message = std::string(file) + ": byte " + std::to_string(offset) + ": " + what;
  return st;
}

template <class Status>
class BasicLeReader {
 public:
  BasicLeReader(std::span<const std::byte> bytes, std::string_view file) : bytes_(bytes), file_(file) {}

  bool ok() const noexcept { return status_.ok(); }
  Status& status() noexcept { return status_; }
  std::uint64_t pos() const noexcept { return pos_; }
  std::uint64_t remaining() const noexcept { return bytes_.size() - pos_; }

  bool error_at(ErrorCode code, std::uint64_t offset, const std::string& what) {
    if (status_.ok()) status_ = file_error<Status>(file_, code, offset, what);
    return false;
  }
  bool error(ErrorCode code, const std::string& what) { return error_at(code, pos_, what); }
  bool need(std::uint64_t n, const char* what) {
    if (!ok()) return false;
    if (n > remaining())
      return error(ErrorCode::Corrupt, std::string("truncated: expected ") + what + " (" + std::to_string(n) +
                                           " bytes), " + std::to_string(remaining()) + " remain");
    return true;
  }
  // An unsigned integer of 1, 2, 4 or 8 bytes, least significant byte first.
  template <class T>
  bool num(T& v, const char* what) {
    static_assert(std::is_unsigned_v<T> && (sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8));
    if (!need(sizeof(T), what)) return false;
    v = static_cast<T>(get_le(bytes_.data() + pos_, sizeof(T)));
    pos_ += sizeof(T);
    return true;
  }
  bool raw(void* dst, std::uint64_t n, const char* what) {
    if (!need(n, what)) return false;
    if (n != 0) std::memcpy(dst, bytes_.data() + pos_, static_cast<std::size_t>(n));
    pos_ += n;
    return true;
  }
  bool bytes(std::vector<std::byte>& v, std::uint64_t n, const char* what) {
    if (!need(n, what)) return false;
    v.resize(static_cast<std::size_t>(n));
    return raw(v.data(), n, what);
  }
  bool u32s(std::vector<std::uint32_t>& v, std::uint64_t count, const char* what) {
    if (!need(count * 4, what)) return false;
    v.resize(static_cast<std::size_t>(count));
    for (auto& x : v) (void)num(x, what);
    return true;
  }
  // A u32 length and that many bytes, any bytes (free text: a report, a label).
  bool text(std::string& s, std::uint32_t max, const char* what) {
    const std::uint64_t start = pos_;
    std::uint32_t n = 0;
    if (!num(n, what)) return false;
    if (n > max)
      return error_at(ErrorCode::Corrupt, start, std::string("expected ") + what + " of at most " + std::to_string(max) +
                                                     " bytes, length is " + std::to_string(n));
    if (!need(n, what)) return false;
    s.resize(n);
    return raw(s.data(), n, what);
  }
  // A name: text without NUL bytes.
  bool str(std::string& s, std::uint32_t max, const char* what) {
    const std::uint64_t start = pos_;
    if (!text(s, max, what)) return false;
    if (s.find('\0') != std::string::npos)
      return error_at(ErrorCode::Corrupt, start, std::string(what) + " '" + s.c_str() + "...' contains a NUL byte");
    return true;
  }

 private:
  std::span<const std::byte> bytes_;
  std::string_view file_;
  Status status_;
  std::uint64_t pos_ = 0;
};

using LeReader = BasicLeReader<CodecStatus>;

}  // namespace lockstep::io
