#pragma once
// Crash-safe file replacement shared by every writer of lockstep files (snapshot files,
// replay files, traces): write FILE.tmp, flush it to stable storage, then atomically replace
// FILE, so an existing file is never left half-written. Portable to POSIX and Windows.
#include <cstdio>
#include <string>

namespace lockstep::hash {

// fflush + fsync (POSIX) / _commit (Windows). False when either step fails.
bool flush_to_disk(std::FILE* f) noexcept;

// Renames `from` over `to`, replacing an existing `to` atomically where the OS allows it
// (rename(2); MoveFileEx with MOVEFILE_REPLACE_EXISTING on Windows).
bool replace_file(const std::string& from, const std::string& to) noexcept;

}  // namespace lockstep::hash
