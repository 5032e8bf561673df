#pragma once
// Moved to lockstep::io (io/, the home of file formats and file I/O): this header keeps code
// written against lockstep::hash compiling. New code includes <lockstep/io/bounded_read.h>.
#include <lockstep/io/bounded_read.h>

namespace lockstep::hash {
using io::ReadLimits;
using io::ReadFailure;
using io::Sniff;
using io::read_file_bounded;
using io::with_errno;
}  // namespace lockstep::hash
