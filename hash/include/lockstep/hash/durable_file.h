#pragma once
// Crash-safe file replacement shared by every writer of lockstep files (snapshot files,
// replay files, traces, bundles, reports): write a fresh temp file beside FILE, flush it to
// stable storage, then atomically replace FILE, so an existing file is never left
// half-written. Temp names are unique and created exclusively without following symlinks, so
// an entry planted at a predictable name (FILE.tmp -> victim) can never receive the data.
// Portable to POSIX and Windows.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

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

// Refuses a destination that is the same file (device + inode, through any symlink or hard
// link) as one of `inputs`: `trace in.replay -o in.replay` would otherwise replace the
// recording it reads. Inputs or destinations that do not exist yet never match. On a match
// `error` names the input.
bool destination_is_not_an_input(const std::string& path, const std::vector<std::string>& inputs, std::string& error);

// Creates a new, empty file beside `target` named TARGET.XXXXXX<suffix> (random letters),
// exclusively (O_CREAT|O_EXCL|O_NOFOLLOW: an existing entry of that name, symlink or not, is
// never opened), and returns it open for binary writing; `created` receives its name. With
// `try_plain_first`, TARGET<suffix> itself is tried first (the recorder's documented
// FILE.partial), falling back to a random name when anything already exists there. nullptr
// with `error` set (strerror) on failure.
std::FILE* create_file_beside(const std::string& target, const std::string& suffix, bool try_plain_first,
                              std::string& created, std::string& error);

// Opens a device or FIFO for writing without blocking on a FIFO that nobody reads: such a
// FIFO fails at once ("FIFO has no reader") instead of hanging the writer forever. Once
// open, writes block normally. nullptr with `error` set on failure.
std::FILE* open_direct_for_writing(const std::string& path, std::string& error);

// fflush + fsync (POSIX) / _commit (Windows). False when either step fails.
bool flush_to_disk(std::FILE* f) noexcept;

// Renames `from` over `to`, replacing an existing `to` atomically where the OS allows it
// (rename(2); MoveFileEx with MOVEFILE_REPLACE_EXISTING on Windows).
bool replace_file(const std::string& from, const std::string& to) noexcept;

// The whole sequence: inspect `path` (above), write `bytes` to a new TARGET.XXXXXX.tmp
// (create_file_beside), flush it to
// disk, replace the target (or write a device/FIFO directly). On failure the temp file is
// removed, `failed_path` names the file that failed, `written` says how many bytes reached
// it, and `what` is the reason with strerror; `path` is untouched.
struct WriteFailure {
  std::string failed_path;
  std::uint64_t written = 0;
  std::string what;
};
bool write_file_atomically(const std::string& path, const void* bytes, std::size_t size, WriteFailure& failure);

// A tool's text output: `path` "-" is standard output (written as is; a short write is
// "cannot write standard output: " and strerror), any other path write_file_atomically.
// Returns "" on success, else the error ("FAILED_PATH: WHAT" for a file).
std::string write_text_output(const std::string& path, std::string_view text);

}  // namespace lockstep::hash
