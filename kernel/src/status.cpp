#include <lockstep/assert.h>
#include <lockstep/status.h>

#include <cstdio>
#include <cstdlib>

namespace lockstep {

const char* to_string(ErrorCode code) noexcept {
  switch (code) {
    case ErrorCode::Ok: return "Ok";
    case ErrorCode::Internal: return "Internal";
    case ErrorCode::InvalidArgument: return "InvalidArgument";
    case ErrorCode::CapacityExceeded: return "CapacityExceeded";
    case ErrorCode::NotRegistered: return "NotRegistered";
    case ErrorCode::AlreadyRegistered: return "AlreadyRegistered";
    case ErrorCode::NotFound: return "NotFound";
    case ErrorCode::Corrupt: return "Corrupt";
    case ErrorCode::Mismatch: return "Mismatch";
    case ErrorCode::IoError: return "IoError";
  }
  return "Unknown";
}

namespace detail {
void assert_fail(const char* file, int line, const char* condition, const char* message) noexcept {
  std::fprintf(stderr, "%s:%d: lockstep assertion failed: %s%s%s\n", file, line, condition,
               message ? " — " : "", message ? message : "");
  std::fflush(stderr);
  std::abort();
}
}  // namespace detail

}  // namespace lockstep
