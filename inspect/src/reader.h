#pragma once
// Internal: a bounds-checked reader over cereal's PortableBinaryInputArchive (options
// Default: load into the host's byte order) for the inspect file formats. Every length is
// checked against the bytes that remain before anything is allocated; the first error keeps
// the byte offset and what was expected.
#include <lockstep/hash/byte_stream.h>
#include <lockstep/hash/snapshot_file.h>

#include <cereal/archives/portable_binary.hpp>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace lockstep::inspect::detail {

// The error of a whole-file check (size, preamble, checksum) before a Reader exists:
// "<file>: byte <offset>: <what>".
inline FileStatus file_error(std::string_view file, ErrorCode code, std::uint64_t offset, const std::string& what) {
  FileStatus st;
  st.code = code;
  st.offset = offset;
  st.message = std::string(file) + ": byte " + std::to_string(offset) + ": " + what;
  return st;
}

class Reader {
 public:
  Reader(hash::ByteSpanSource& src, cereal::PortableBinaryInputArchive& ar, std::string_view file)
      : src_(src), ar_(ar), file_(file) {}

  bool ok() const noexcept { return status_.ok(); }
  FileStatus& status() noexcept { return status_; }
  std::uint64_t pos() const noexcept { return src_.pos(); }
  std::uint64_t remaining() const noexcept { return src_.remaining(); }
  // Offset of the archive inside the file (the reader may start after a preamble).
  void set_base(std::uint64_t base) noexcept { base_ = base; }

  bool error_at(ErrorCode code, std::uint64_t offset, const std::string& what) {
    if (status_.ok()) {
      status_.code = code;
      status_.offset = base_ + offset;
      status_.message = std::string(file_) + ": byte " + std::to_string(base_ + offset) + ": " + what;
    }
    return false;
  }
  bool error(ErrorCode code, const std::string& what) { return error_at(code, pos(), what); }
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
    ar_(v);
    return true;
  }
  bool raw(void* dst, std::uint64_t n, const char* what) {
    if (!need(n, what)) return false;
    if (n != 0) ar_(cereal::binary_data(static_cast<std::uint8_t*>(dst), static_cast<std::size_t>(n)));
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
    for (auto& x : v) ar_(x);
    return true;
  }
  bool str(std::string& s, std::uint32_t max, const char* what) {
    const std::uint64_t start = pos();
    std::uint32_t n = 0;
    if (!num(n, what)) return false;
    if (n > max)
      return error_at(ErrorCode::Corrupt, start, std::string("expected ") + what + " of at most " + std::to_string(max) +
                                                     " bytes, length is " + std::to_string(n));
    if (!need(n, what)) return false;
    s.resize(n);
    return raw(s.data(), n, what);
  }

 private:
  hash::ByteSpanSource& src_;
  cereal::PortableBinaryInputArchive& ar_;
  std::string_view file_;
  FileStatus status_;
  std::uint64_t base_ = 0;
};

inline std::uint64_t load_le64(const std::byte* p) noexcept {
  std::uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v |= std::to_integer<std::uint64_t>(p[i]) << (8 * i);
  return v;
}

}  // namespace lockstep::inspect::detail
