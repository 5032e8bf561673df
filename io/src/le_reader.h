#pragma once
// Internal: a bounds-checked little-endian reader over a byte span. Every length is checked
// against the bytes that remain before anything is allocated; the first error keeps the byte
// offset and what was expected ("<file>: byte <offset>: <what>").
#include <lockstep/io/snapshot_codec.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace lockstep::io {

class LeReader {
 public:
  LeReader(std::span<const std::byte> bytes, std::string_view file) : bytes_(bytes), file_(file) {}

  bool ok() const noexcept { return status_.ok(); }
  CodecStatus& status() noexcept { return status_; }
  std::uint64_t pos() const noexcept { return pos_; }
  std::uint64_t remaining() const noexcept { return bytes_.size() - pos_; }

  bool error_at(ErrorCode code, std::uint64_t offset, const std::string& what) {
    if (status_.ok()) {
      status_.code = code;
      status_.offset = offset;
      status_.message = std::string(file_) + ": byte " + std::to_string(offset) + ": " + what;
    }
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
  template <class T>
  bool num(T& v, const char* what) {
    if (!need(sizeof(T), what)) return false;
    T x = 0;
    for (std::size_t i = 0; i < sizeof(T); ++i)
      x = static_cast<T>(x | (static_cast<T>(std::to_integer<std::uint8_t>(bytes_[pos_ + i])) << (8 * i)));
    v = x;
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
  bool str(std::string& s, std::uint32_t max, const char* what) {
    const std::uint64_t start = pos_;
    std::uint32_t n = 0;
    if (!num(n, what)) return false;
    if (n > max)
      return error_at(ErrorCode::Corrupt, start, std::string("expected ") + what + " of at most " + std::to_string(max) +
                                                     " bytes, length is " + std::to_string(n));
    if (!need(n, what)) return false;
    s.resize(n);
    if (!raw(s.data(), n, what)) return false;
    if (s.find('\0') != std::string::npos)
      return error_at(ErrorCode::Corrupt, start, std::string(what) + " '" + s.c_str() + "...' contains a NUL byte");
    return true;
  }

  static std::uint64_t load_le64(const std::byte* p) noexcept {
    std::uint64_t v = 0;
    for (int i = 0; i < 8; ++i) v |= std::to_integer<std::uint64_t>(p[i]) << (8 * i);
    return v;
  }

 private:
  std::span<const std::byte> bytes_;
  std::string_view file_;
  CodecStatus status_;
  std::uint64_t pos_ = 0;
};

}  // namespace lockstep::io
