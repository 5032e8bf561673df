// lockstep::cli::main — parses the command line and dispatches to one subcommand; each
// subcommand lives in cmd_<name>.cpp. Exit codes: 0 ok, 1 mismatch/desync found, 2 bad
// input or usage.
#include "common.h"

#include <cstdio>
#include <exception>
#include <string>

namespace lockstep::cli {

namespace {
ToolInfo g_tool;
}  // namespace

const ToolInfo& tool() noexcept { return g_tool; }

int main(int argc, char** argv, const ToolInfo& info) {
  g_tool = info;
  const std::string name(info.name);
  CLI::App app{name + " — deterministic lockstep simulation kernel and replay harness.\n"
                      "Exit codes: 0 ok, 1 mismatch/desync found, 2 bad input or usage.",
               name};
  app.require_subcommand(1);
  app.footer("Examples:\n"
             "  " + name + " run                                   # replay the default recording\n"
             "  " + name + " record --sim duel --bot 7 --ticks 1800 -o duel.replay\n"
             "  " + name + " verify duel.replay --trace duel.trace\n"
             "  " + name + " bench --sim skirmish --units 10000 --ticks 1000\n"
             "Run '" + name + " <command> --help' for a command's options.");
  const Command commands[] = {add_run(app),   add_record(app),  add_verify(app), add_trace(app),
                              add_info(app),  add_convert(app), add_bench(app),
                              add_synctest(app), add_netsim(app),
                              add_dump(app),  add_diff(app),     add_peer(app),
                              add_spectate(app)};
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
    std::fprintf(stderr, "%s: error: %s\n", name.c_str(), e.what());
    return kExitBadInput;
  }
  return kExitBadInput;
}

}  // namespace lockstep::cli
