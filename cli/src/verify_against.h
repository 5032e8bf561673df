#pragma once
// `lockstep verify A --against B`: two recordings of the same inputs compared tick by tick
// (replay::compare_recordings), the field-level answer and bundle from inspect/forensics.h;
// this file only prints them.
#include "common.h"

#include <string>

namespace lockstep::cli {

// Exit 0 same hashes everywhere; 1 first divergent tick (+ field-level diff when both
// recorded a checkpoint there); 2 bad input or not the same inputs.
int verify_against(const std::string& a, const std::string& b, const std::string& bundle_dir, bool json);

}  // namespace lockstep::cli
