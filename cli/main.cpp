// lockstep — the command-line tool. Thin dispatch: each subcommand lives in cmd_<name>.cpp.
// Exit codes (every subcommand): 0 ok, 1 mismatch/desync found, 2 bad input or usage.
#include "common.h"

#if defined(LOCKSTEP_HAVE_FIXTURES)
#include <lockstep/fixtures/fixtures.h>
#endif

#include <cstdio>
#include <exception>

int main(int argc, char** argv) {
  using namespace lockstep::cli;
#if defined(LOCKSTEP_HAVE_FIXTURES)
  lockstep::fixtures::register_builtin_sims();
#endif
  CLI::App app{"lockstep — deterministic lockstep simulation kernel and replay harness.\n"
               "Exit codes: 0 ok, 1 mismatch/desync found, 2 bad input or usage.",
               "lockstep"};
  app.require_subcommand(1);
  app.footer("Examples:\n"
             "  lockstep run                                   # replay the embedded skirmish fixture\n"
             "  lockstep record --sim duel --bot 7 --ticks 1800 -o duel.replay\n"
             "  lockstep verify duel.replay --trace duel.trace\n"
             "  lockstep bench --sim skirmish --units 10000 --ticks 1000\n"
             "Run 'lockstep <command> --help' for a command's options.");
  const Command commands[] = {add_run(app),   add_record(app),  add_verify(app), add_trace(app),
                              add_info(app),  add_convert(app), add_bench(app),
                              add_synctest(app), add_netsim(app)};
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);  // prints help (rc 0) or the usage error
    return rc == 0 ? kExitOk : kExitBadInput;
  }
  try {
    for (const Command& c : commands)
      if (c.app->parsed()) return c.run();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "lockstep: error: %s\n", e.what());
    return kExitBadInput;
  }
  return kExitBadInput;
}
