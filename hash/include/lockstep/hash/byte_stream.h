#pragma once
// Moved to lockstep::io (io/, the home of file formats and file I/O): this header keeps code
// written against lockstep::hash compiling. New code includes <lockstep/io/byte_stream.h>.
#include <lockstep/io/byte_stream.h>

namespace lockstep::hash {
using io::ByteVectorSink;
using io::ByteSpanSource;
}  // namespace lockstep::hash
