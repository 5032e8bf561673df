#pragma once
// std::streambuf adapters over byte buffers, for the cereal archives behind every lockstep
// file format (snapshot files, replay files): a sink that appends to a byte vector and a
// bounded source over a byte span that knows its position (for error offsets) and what is
// left (so readers check lengths before allocating).
#include <cstddef>
#include <cstdint>
#include <ios>
#include <streambuf>
#include <vector>

namespace lockstep::hash {

class ByteVectorSink final : public std::streambuf {
 public:
  explicit ByteVectorSink(std::vector<std::byte>& out) : out_(out) {}

 protected:
  std::streamsize xsputn(const char* s, std::streamsize n) override {
    const auto* p = reinterpret_cast<const std::byte*>(s);
    out_.insert(out_.end(), p, p + n);
    return n;
  }
  int_type overflow(int_type c) override {
    if (!traits_type::eq_int_type(c, traits_type::eof())) out_.push_back(static_cast<std::byte>(c));
    return traits_type::not_eof(c);
  }

 private:
  std::vector<std::byte>& out_;
};

class ByteSpanSource final : public std::streambuf {
 public:
  ByteSpanSource(const std::byte* data, std::size_t n) {
    char* b = const_cast<char*>(reinterpret_cast<const char*>(data));
    setg(b, b, b + n);
  }
  std::uint64_t pos() const noexcept { return static_cast<std::uint64_t>(gptr() - eback()); }
  std::uint64_t remaining() const noexcept { return static_cast<std::uint64_t>(egptr() - gptr()); }

 protected:
  // Relative seeks only (what cereal's skipping needs), clamped to the span.
  pos_type seekoff(off_type off, std::ios_base::seekdir dir, std::ios_base::openmode) override {
    if (dir != std::ios_base::cur) return pos_type(off_type(-1));
    const off_type target = static_cast<off_type>(pos()) + off;
    if (target < 0 || target > egptr() - eback()) return pos_type(off_type(-1));
    setg(eback(), eback() + target, egptr());
    return pos_type(target);
  }
};

}  // namespace lockstep::hash
