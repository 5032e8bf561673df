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

}  // namespace lockstep::hash
