#include <lockstep/hash/durable_file.h>

#if defined(_WIN32)
#include <io.h>
#include <windows.h>
#else
#include <unistd.h>
#endif

namespace lockstep::hash {

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
  const std::string tmp = path + ".tmp";
  std::FILE* f = std::fopen(tmp.c_str(), "wb");
  if (f == nullptr) {
    failure = {tmp, 0, "cannot open for writing"};
    return false;
  }
  const std::size_t written = std::fwrite(bytes, 1, size, f);
  bool good = written == size && flush_to_disk(f);
  good = (std::fclose(f) == 0) && good;
  if (!good) {
    std::remove(tmp.c_str());
    failure = {tmp, written, "write failed"};
    return false;
  }
  if (!replace_file(tmp, path)) {
    std::remove(tmp.c_str());
    failure = {path, 0, "cannot rename " + tmp + " over it"};
    return false;
  }
  return true;
}

}  // namespace lockstep::hash
