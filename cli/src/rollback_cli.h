#pragma once
// Shared by `lockstep synctest` and `lockstep netsim`: the hidden broken sim (negative tests)
// and a field-level diff of two states (desync reports). Display code: floats allowed.
#include <lockstep/replay/sim.h>
#include <lockstep/storage_view.h>

#include <string>
#include <string_view>

namespace lockstep::cli {

// "broken-static": keeps a counter in a static (state outside the world), so a rollback or
// a second peer in the same process simulates differently. Not registered: `synctest` and
// `netsim` accept it by name so the CLI tests can prove the checks catch it.
const replay::Sim& broken_static_sim();
// find_sim plus the hidden test sims.
const replay::Sim* find_sim_or_hidden(std::string_view name);

// Human-readable field-level differences between two states of the same schema (at most
// `limit` lines): "  Component.field (entity slot S): A | B".
std::string diff_states(const StorageView& a, const StorageView& b, std::size_t limit = 12);

}  // namespace lockstep::cli
