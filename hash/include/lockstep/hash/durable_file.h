#pragma once
// Crash-safe file replacement shared by every writer of lockstep files (snapshot files,
// replay files, traces): write FILE.tmp, flush it to stable storage, then atomically replace
// FILE, so an existing file is never left half-written. Portable to POSIX and Windows.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>

namespace lockstep::hash {

// What an output path is, inspected BEFORE any work is done for it (every writer of lockstep
// files goes through this, so `-o /dev/null`, a FIFO, a symlink or a directory behave the
// same for every subcommand):
//   - absent or a regular file: written atomically (temp file beside it, then rename);
//   - a symlink (chain): resolved, and its final target is replaced atomically, so the link
//     survives and the data lands where it points;
//   - a character device or a FIFO (/dev/null, /dev/stdout, a pipe, >(gzip > x)): written
//     directly, never renamed over (replacing /dev/null with a file as root was the bug);
//   - a directory, a block device, a socket, an empty path, or a path whose directory does
//     not exist: refused with the reason (strerror where the OS gave one).
struct Destination {
  std::string path;     // where the bytes go: the resolved target for a symlink
  bool direct = false;  // true: open and write `path` itself (device, FIFO)
};
bool inspect_destination(const std::string& path, Destination& out, std::string& error);

// fflush + fsync (POSIX) / _commit (Windows). False when either step fails.
bool flush_to_disk(std::FILE* f) noexcept;

// Renames `from` over `to`, replacing an existing `to` atomically where the OS allows it
// (rename(2); MoveFileEx with MOVEFILE_REPLACE_EXISTING on Windows).
bool replace_file(const std::string& from, const std::string& to) noexcept;

// The whole sequence: inspect `path` (above), write `bytes` to `<target>`.tmp, flush it to
// disk, replace the target (or write a device/FIFO directly). On failure the temp file is
// removed, `failed_path` names the file that failed, `written` says how many bytes reached
// it, and `what` is the reason with strerror; `path` is untouched.
struct WriteFailure {
  std::string failed_path;
  std::uint64_t written = 0;
  std::string what;
};
bool write_file_atomically(const std::string& path, const void* bytes, std::size_t size, WriteFailure& failure);

}  // namespace lockstep::hash
