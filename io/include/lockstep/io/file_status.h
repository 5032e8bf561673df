#pragma once
// The result of a file-layer call (snapshot files, replay files, bundles): an ErrorCode plus
// a message naming the file and the byte offset of the problem.
#include <lockstep/status.h>

#include <cstdint>
#include <string>

namespace lockstep {

struct [[nodiscard]] FileStatus {
  ErrorCode code = ErrorCode::Ok;
  std::string message;       // empty when ok
  std::uint64_t offset = 0;  // byte offset of the problem in the file (0 when not applicable)

  bool ok() const noexcept { return code == ErrorCode::Ok; }
  static FileStatus Ok() { return {}; }
};

}  // namespace lockstep
