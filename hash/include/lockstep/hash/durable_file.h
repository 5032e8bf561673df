#pragma once
// Moved to lockstep::io (io/, the home of file formats and file I/O): this header keeps code
// written against lockstep::hash compiling. New code includes <lockstep/io/durable_file.h>.
#include <lockstep/io/durable_file.h>

namespace lockstep::hash {
using io::Destination;
using io::inspect_destination;
using io::destination_is_not_an_input;
using io::create_file_beside;
using io::open_direct_for_writing;
using io::flush_to_disk;
using io::replace_file;
using io::WriteFailure;
using io::write_file_atomically;
}  // namespace lockstep::hash
