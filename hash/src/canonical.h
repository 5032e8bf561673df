#pragma once
// The byte order helpers moved to <lockstep/io/byte_order.h>; hash/src keeps its short names.
#include <lockstep/io/byte_order.h>

namespace lockstep::hash_detail {
using namespace lockstep::io;
}  // namespace lockstep::hash_detail
