#include <lockstep/hash/bounded_read.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include <sys/stat.h>

namespace lockstep::hash {

std::string with_errno(const std::string& message) {
  const int e = errno;
  return message + ": " + (e != 0 ? std::strerror(e) : "unknown error");
}

namespace {
std::string size_text(std::uint64_t n) {
  if (n >= (1ull << 30) && n % (1ull << 30) == 0) return std::to_string(n >> 30) + " GiB";
  if (n >= (1ull << 20) && n % (1ull << 20) == 0) return std::to_string(n >> 20) + " MiB";
  return std::to_string(n) + " bytes";
}
}  // namespace

bool read_file_bounded(const std::string& path, const ReadLimits& limits, const Sniff& sniff,
                       std::vector<std::byte>& out, ReadFailure& failure) {
  out.clear();
  errno = 0;
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) {
    failure = {ErrorCode::IoError, 0, with_errno("cannot open for reading")};
    return false;
  }
  struct Closer {
    std::FILE* f;
    ~Closer() { std::fclose(f); }
  } closer{f};
  struct stat st {};
  if (::fstat(::fileno(f), &st) != 0) {
    failure = {ErrorCode::IoError, 0, with_errno("cannot inspect")};
    return false;
  }
  if (S_ISDIR(st.st_mode)) {
    failure = {ErrorCode::IoError, 0, "cannot read: " + std::string(std::strerror(EISDIR))};
    return false;
  }
  const bool regular = S_ISREG(st.st_mode);
  std::uint64_t cap = limits.max_stream_bytes;
  if (regular) {
    const auto size = static_cast<std::uint64_t>(st.st_size);
    if (size > limits.max_file_bytes) {
      failure = {ErrorCode::CapacityExceeded, 0,
                 "file is " + std::to_string(size) + " bytes, more than the " + size_text(limits.max_file_bytes) +
                     " this reader accepts"};
      return false;
    }
    cap = limits.max_file_bytes;
    out.reserve(static_cast<std::size_t>(size));
  }
  bool sniffed = !sniff;
  std::byte buf[65536];
  for (;;) {
    errno = 0;
    const std::size_t n = std::fread(buf, 1, sizeof buf, f);
    if (n == 0) break;
    // The sniff comes before the size cap, so a device of zeros is named for what it is.
    if (!sniffed && out.size() + n >= limits.sniff_bytes) {
      sniffed = true;
      std::vector<std::byte> head(out.begin(), out.end());
      head.insert(head.end(), buf, buf + (limits.sniff_bytes - out.size()));
      std::string why = sniff(head);
      if (!why.empty()) {
        failure = {ErrorCode::Corrupt, 0, std::move(why)};
        return false;
      }
    }
    if (static_cast<std::uint64_t>(out.size()) + n > cap) {
      failure = {ErrorCode::CapacityExceeded, out.size(),
                 std::string(regular ? "file grew past " : "stream (not a regular file) longer than ") +
                     size_text(cap) + " while being read"};
      return false;
    }
    out.insert(out.end(), buf, buf + n);
  }
  if (std::ferror(f) != 0) {
    failure = {ErrorCode::IoError, out.size(), with_errno("read error")};
    return false;
  }
  if (!sniffed) {
    std::string why = sniff(std::span<const std::byte>(out.data(), out.size()));
    if (!why.empty()) {
      failure = {ErrorCode::Corrupt, 0, std::move(why)};
      return false;
    }
  }
  return true;
}

}  // namespace lockstep::hash
