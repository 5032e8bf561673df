#pragma once
// Shared by `lockstep synctest` and `lockstep netsim`: the hidden broken sims (negative tests).
// Field-level diffs live in lockstep::inspect (inspect/diff.h).
#include <lockstep/replay/sim.h>
#include <lockstep/storage_view.h>

#include <string>
#include <string_view>

namespace lockstep::cli {

// "broken-static": keeps a counter in a static (state outside the world), so a rollback or
// a second peer in the same process simulates differently. Not registered: `synctest` and
// `netsim` accept it by name so the CLI tests can prove the checks catch it.
const replay::Sim& broken_static_sim();
// The planted-bug sims of the desync field guide (planted_sims.cpp): broken-stale,
// broken-peer, broken-platform; nullptr for other names.
const replay::Sim* find_planted_sim(std::string_view name);
// broken-platform's stand-in for a build difference: a second build of the tool defines
// LOCKSTEP_PLANTED_PLATFORM_QUIRK and switches this on before running.
void set_planted_platform_quirk(bool on) noexcept;
// The stock tool's position marks for `dump --svg` / `diff --svg` (skirmish Position.p,
// duel and planted-sim Body.pos); a REGISTER function of the stock tool.
void mark_stock_positions();
// find_sim plus the hidden test sims.
const replay::Sim* find_sim_or_hidden(std::string_view name);

}  // namespace lockstep::cli
