#include <lockstep/hash/durable_file.h>
#include <lockstep/hash/bounded_read.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <system_error>

#include <fcntl.h>
#include <sys/stat.h>

#if defined(_WIN32)
#include <io.h>
#include <process.h>
#include <windows.h>
#else
#include <unistd.h>
#endif

namespace lockstep::hash {

bool inspect_destination(const std::string& path, Destination& out, std::string& error) {
  namespace fs = std::filesystem;
  out = Destination{};
  if (path.empty()) {
    error = "empty output path";
    return false;
  }
  fs::path p(path);
  std::error_code ec;
  // Follow a symlink chain by hand: a dangling link's target must be written, not the link.
  for (int hops = 0;; ++hops) {
    const fs::file_status ls = fs::symlink_status(p, ec);
    if (ec && ls.type() != fs::file_type::not_found) {
      error = "cannot inspect: " + ec.message();
      return false;
    }
    if (ls.type() != fs::file_type::symlink) break;
    if (hops == 40) {
      error = std::strerror(ELOOP);
      return false;
    }
    const fs::path target = fs::read_symlink(p, ec);
    if (ec) {
      error = "cannot read symlink: " + ec.message();
      return false;
    }
    p = target.is_absolute() ? target : p.parent_path() / target;
  }
  out.path = p.string();
  // Reasons do not repeat `path` (callers prefix it); a resolved symlink names its target.
  const std::string shown = out.path == path ? std::string() : "symlink to " + out.path + ": ";
  const fs::file_status st = fs::status(p, ec);
  switch (st.type()) {
    case fs::file_type::not_found:
    case fs::file_type::regular: break;
    case fs::file_type::character:
    case fs::file_type::fifo: out.direct = true; return true;
    case fs::file_type::directory: error = shown + std::strerror(EISDIR); return false;
    case fs::file_type::block: error = shown + "is a block device; refusing to overwrite it"; return false;
    case fs::file_type::socket: error = shown + "is a socket; cannot write a file there"; return false;
    default: error = shown + "not a regular file, device or FIFO"; return false;
  }
  // The temp file goes beside the target, so its directory must exist.
  fs::path dir = p.parent_path();
  if (dir.empty()) dir = ".";
  const fs::file_status ds = fs::status(dir, ec);
  if (ds.type() == fs::file_type::not_found) {
    error = shown + "directory " + dir.string() + ": " + std::strerror(ENOENT);
    return false;
  }
  if (ds.type() != fs::file_type::directory) {
    error = shown + dir.string() + ": " + std::strerror(ENOTDIR);
    return false;
  }
  return true;
}

bool destination_is_not_an_input(const std::string& path, const std::vector<std::string>& inputs, std::string& error) {
  namespace fs = std::filesystem;
  if (path.empty() || path == "-") return true;
  for (const std::string& in : inputs) {
    if (in.empty() || in == "-") continue;
    std::error_code ec;
    // equivalent() compares device + inode (file index on Windows) after following symlinks;
    // a missing file on either side is an error code, i.e. no match.
    if (fs::equivalent(fs::path(path), fs::path(in), ec) && !ec) {
      error = (in == path ? std::string("is the input") : "is the same file as the input " + in) +
              "; refusing to overwrite what is being read (write to another path)";
      return false;
    }
  }
  return true;
}

namespace {

// Not security-sensitive: O_EXCL makes a guessed or colliding name harmless (we retry); the
// letters only keep concurrent writers of the same target from colliding often.
std::string random_letters(std::size_t n) {
  // lockstep: allow(static) temp-file names only; they never reach state, hashes or file contents
  static std::atomic<std::uint64_t> counter{0};
  // lockstep: allow(time) temp-file names only; they never reach state, hashes or file contents
  std::uint64_t x = static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
#if defined(_WIN32)
  x ^= static_cast<std::uint64_t>(::_getpid()) << 32;
#else
  x ^= static_cast<std::uint64_t>(::getpid()) << 32;
#endif
  x += 0x9E3779B97F4A7C15ull * (counter.fetch_add(1, std::memory_order_relaxed) + 1);
  // splitmix64 finaliser: neighbouring counters give unrelated letters.
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  x ^= x >> 31;
  static constexpr char kAlphabet[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  std::string out;
  for (std::size_t i = 0; i < n; ++i) {
    out.push_back(kAlphabet[x % 62]);
    x /= 62;
  }
  return out;
}

// -1 with errno set when `name` exists (as anything, a dangling symlink included) or cannot
// be created.
int create_exclusive(const std::string& name) {
#if defined(_WIN32)
  return ::_open(name.c_str(), _O_WRONLY | _O_CREAT | _O_EXCL | _O_BINARY, _S_IREAD | _S_IWRITE);
#else
  int flags = O_WRONLY | O_CREAT | O_EXCL;
#if defined(O_NOFOLLOW)
  flags |= O_NOFOLLOW;
#endif
#if defined(O_CLOEXEC)
  flags |= O_CLOEXEC;
#endif
  // 0666 & umask: the same permissions fopen(..., "wb") gave the files before.
  return ::open(name.c_str(), flags, 0666);
#endif
}

std::FILE* as_stream(int fd) {
#if defined(_WIN32)
  std::FILE* f = ::_fdopen(fd, "wb");
  if (f == nullptr) ::_close(fd);
#else
  std::FILE* f = ::fdopen(fd, "wb");
  if (f == nullptr) ::close(fd);
#endif
  return f;
}

}  // namespace

std::FILE* create_file_beside(const std::string& target, const std::string& suffix, bool try_plain_first,
                              std::string& created, std::string& error) {
  created.clear();
  if (try_plain_first) {
    errno = 0;
    const std::string plain = target + suffix;
    const int fd = create_exclusive(plain);
    if (fd >= 0) {
      std::FILE* f = as_stream(fd);
      if (f != nullptr) {
        created = plain;
        return f;
      }
      error = with_errno("cannot open " + plain + " for writing");
      std::remove(plain.c_str());
      return nullptr;
    }
    if (errno != EEXIST) {
      error = with_errno("cannot create " + plain);
      return nullptr;
    }
  }
  for (int attempt = 0; attempt < 100; ++attempt) {
    const std::string name = target + "." + random_letters(6) + suffix;
    errno = 0;
    const int fd = create_exclusive(name);
    if (fd < 0) {
      if (errno == EEXIST) continue;
      error = with_errno("cannot create " + name);
      return nullptr;
    }
    std::FILE* f = as_stream(fd);
    if (f == nullptr) {
      error = with_errno("cannot open " + name + " for writing");
      std::remove(name.c_str());
      return nullptr;
    }
    created = name;
    return f;
  }
  error = "cannot create a temp file beside " + target + ": 100 names taken";
  return nullptr;
}

std::FILE* open_direct_for_writing(const std::string& path, std::string& error) {
  errno = 0;
#if defined(_WIN32)
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) error = with_errno("cannot open for writing");
  return f;
#else
  int flags = O_WRONLY | O_NONBLOCK;
#if defined(O_CLOEXEC)
  flags |= O_CLOEXEC;
#endif
  // O_NONBLOCK: opening a FIFO for writing with no reader fails with ENXIO at once instead
  // of waiting for a reader that may never come.
  const int fd = ::open(path.c_str(), flags);
  if (fd < 0) {
    if (errno == ENXIO) {
      struct stat st {};
      if (::stat(path.c_str(), &st) == 0 && S_ISFIFO(st.st_mode)) {
        error = "FIFO has no reader (start the reading process first); not waiting for one";
        return nullptr;
      }
    }
    error = with_errno("cannot open for writing");
    return nullptr;
  }
  // Writes themselves block as usual (a slow reader must not turn into EAGAIN).
  const int fl = ::fcntl(fd, F_GETFL);
  if (fl == -1 || ::fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) == -1) {
    error = with_errno("cannot open for writing");
    ::close(fd);
    return nullptr;
  }
  std::FILE* f = ::fdopen(fd, "wb");
  if (f == nullptr) {
    error = with_errno("cannot open for writing");
    ::close(fd);
  }
  return f;
#endif
}

bool flush_to_disk(std::FILE* f) noexcept {
  if (std::fflush(f) != 0) return false;
#if defined(_WIN32)
  return ::_commit(::_fileno(f)) == 0;
#else
  return ::fsync(::fileno(f)) == 0;
#endif
}

bool replace_file(const std::string& from, const std::string& to) noexcept {
#if defined(_WIN32)
  return ::MoveFileExA(from.c_str(), to.c_str(), MOVEFILE_REPLACE_EXISTING | MOVEFILE_WRITE_THROUGH) != 0;
#else
  return std::rename(from.c_str(), to.c_str()) == 0;
#endif
}

bool write_file_atomically(const std::string& path, const void* bytes, std::size_t size, WriteFailure& failure) {
  Destination dest;
  std::string error;
  if (!inspect_destination(path, dest, error)) {
    failure = {path, 0, error};
    return false;
  }
  if (dest.direct) {
    // A device or FIFO: no temp file, no rename, and no fsync (EINVAL on /dev/null, pipes).
    std::FILE* f = open_direct_for_writing(dest.path, error);
    if (f == nullptr) {
      failure = {dest.path, 0, error};
      return false;
    }
    const std::size_t written = std::fwrite(bytes, 1, size, f);
    bool good = written == size && std::fflush(f) == 0;
    const std::string why = with_errno("write failed");
    good = (std::fclose(f) == 0) && good;
    if (!good) {
      failure = {dest.path, written, why};
      return false;
    }
    return true;
  }
  std::string tmp;
  std::FILE* f = create_file_beside(dest.path, ".tmp", /*try_plain_first=*/false, tmp, error);
  if (f == nullptr) {
    failure = {dest.path, 0, error};
    return false;
  }
  const std::size_t written = std::fwrite(bytes, 1, size, f);
  bool good = written == size && flush_to_disk(f);
  std::string why = good ? std::string() : with_errno("write failed");
  if (std::fclose(f) != 0 && good) {
    good = false;
    why = with_errno("close failed");
  }
  if (!good) {
    std::remove(tmp.c_str());
    failure = {tmp, written, why};
    return false;
  }
  if (!replace_file(tmp, dest.path)) {
    const std::string reason = with_errno("cannot rename " + tmp + " over it");
    std::remove(tmp.c_str());
    failure = {dest.path, 0, reason};
    return false;
  }
  return true;
}

std::string write_text_output(const std::string& path, std::string_view text) {
  if (path == "-") {
    errno = 0;
    if (std::fwrite(text.data(), 1, text.size(), stdout) != text.size())
      return std::string("cannot write standard output: ") + std::strerror(errno != 0 ? errno : EIO);
    return "";
  }
  WriteFailure failure;
  if (!write_file_atomically(path, text.data(), text.size(), failure)) return failure.failed_path + ": " + failure.what;
  return "";
}

}  // namespace lockstep::hash
