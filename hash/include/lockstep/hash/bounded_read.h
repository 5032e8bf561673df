#pragma once
// Reading a whole lockstep file (replay, trace, snapshot) without trusting it: the size of a
// regular file is checked against the caller's limit before anything is read; devices, pipes
// and sockets (whose size is unknown) are read up to a smaller cap; and the first bytes are
// shown to the caller's `sniff` check before the rest is read, so `/dev/zero`, `/dev/urandom`
// or a mistyped path to a huge file fail after one chunk instead of filling memory.
// Every operating-system failure carries strerror(errno).
#include <lockstep/status.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

namespace lockstep::hash {

struct ReadLimits {
  std::uint64_t max_file_bytes = 0;    // regular files: larger ones are refused unread
  std::uint64_t max_stream_bytes = 0;  // devices, FIFOs, sockets: reading stops with an error here
  std::size_t sniff_bytes = 64;        // how many leading bytes `sniff` sees (fewer at end of file)
};

struct ReadFailure {
  ErrorCode code = ErrorCode::Ok;  // IoError (the OS refused), CapacityExceeded, or the sniff's code
  std::uint64_t offset = 0;        // bytes read when it failed
  std::string what;                // reason, e.g. "cannot open for reading: No such file or directory"
};

// Returns an empty string when the leading bytes can start a valid file, else the reason
// (reported as ErrorCode::Corrupt at offset 0).
using Sniff = std::function<std::string(std::span<const std::byte> head)>;

bool read_file_bounded(const std::string& path, const ReadLimits& limits, const Sniff& sniff,
                       std::vector<std::byte>& out, ReadFailure& failure);

// "Message: strerror(errno)" for the calling thread's current errno.
std::string with_errno(const std::string& message);

}  // namespace lockstep::hash
