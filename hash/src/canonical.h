#pragma once
// The byte order helpers live in io/ (<lockstep/io/byte_order.h>), shared with the snapshot
// codec; hash/src keeps its short names.
#include <lockstep/io/byte_order.h>

namespace lockstep::hash_detail {
using namespace lockstep::io;
}  // namespace lockstep::hash_detail
