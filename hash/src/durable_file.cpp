#include <lockstep/hash/durable_file.h>
#include <lockstep/hash/bounded_read.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <system_error>

#include <sys/stat.h>

#if defined(_WIN32)
#include <io.h>
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
    errno = 0;
    std::FILE* f = std::fopen(dest.path.c_str(), "wb");
    if (f == nullptr) {
      failure = {dest.path, 0, with_errno("cannot open for writing")};
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
  const std::string tmp = dest.path + ".tmp";
  errno = 0;
  std::FILE* f = std::fopen(tmp.c_str(), "wb");
  if (f == nullptr) {
    failure = {tmp, 0, with_errno("cannot open for writing")};
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

}  // namespace lockstep::hash
