#pragma once
// Crash-safe file replacement shared by every writer of lockstep files (snapshot files,
// replay files, traces): write FILE.tmp, flush it to stable storage, then atomically replace
// FILE, so an existing file is never left half-written. Portable to POSIX and Windows.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>

namespace lockstep::hash {

// fflush + fsync (POSIX) / _commit (Windows). False when either step fails.
bool flush_to_disk(std::FILE* f) noexcept;

// Renames `from` over `to`, replacing an existing `to` atomically where the OS allows it
// (rename(2); MoveFileEx with MOVEFILE_REPLACE_EXISTING on Windows).
bool replace_file(const std::string& from, const std::string& to) noexcept;

// The whole sequence: write `bytes` to `path`.tmp, flush it to disk, replace `path`. On
// failure the temp file is removed, `failed_path` names the file that failed, `written`
// says how many bytes reached it, and `what` is a short reason; `path` is untouched.
struct WriteFailure {
  std::string failed_path;
  std::uint64_t written = 0;
  std::string what;
};
bool write_file_atomically(const std::string& path, const void* bytes, std::size_t size, WriteFailure& failure);

}  // namespace lockstep::hash
