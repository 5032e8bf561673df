// lockstep::cli::main — parses the command line and dispatches to one subcommand; each
// subcommand lives in cmd_<name>.cpp. Exit codes: 0 ok, 1 mismatch/desync found, 2 bad
// input or usage.
#include "common.h"

#include <lockstep/inspect/bundle.h>
#include <lockstep/inspect/query.h>
#include <lockstep/version.h>

#include <cstdio>
#include <exception>
#include <string>

namespace lockstep::cli {

namespace {
ToolInfo g_tool;

// CLI11 converts "-1" to 2^64-1 for unsigned options; every unsigned option refuses a sign.
void refuse_negative_unsigned(CLI::App& app) {
  for (CLI::Option* o : app.get_options()) {
    if (o->get_type_name().find("UINT") == std::string::npos) continue;
    o->check(CLI::Validator(
        [](std::string& v) { return !v.empty() && v[0] == '-' ? "must not be negative: " + v : std::string(); },
        "", "non-negative"));
  }
  for (CLI::App* sub : app.get_subcommands({})) refuse_negative_unsigned(*sub);
}

// CLI11 checks required options and subcommands before it reports words it did not
// recognise, so `lockstep frobnicate` said only "A subcommand is required" and a mistyped
// `--tick 5` only "--ticks is required". The unrecognised words are named as well.
std::string usage_message(const CLI::App* app, const CLI::Error& e) {
  // CLI11 quotes argv words: escaped and cut like every other echo (an ESC sequence given as
  // an argument must not reach the terminal).
  std::string msg = std::string(g_tool.name) + ": error: " + inspect::printable_excerpt(e.what(), 4096);
  std::vector<std::string> extra = app->remaining(true);
  if (!extra.empty() && e.get_name() != "ExtrasError") {
    const std::size_t before = msg.size();
    msg += " (not recognised:";
    const std::string said = std::string(" ") + e.what() + " ";
    for (const std::string& w : extra)
      if (said.find(" " + w + " ") == std::string::npos) msg += " '" + inspect::printable_excerpt(w, 64) + "'";
    if (msg.back() == ':') msg.resize(before);  // every word was already named
    else msg += ")";
  }
  return msg + "\nRun with --help for more information.\n";
}
// `--version`: the release, then the build facts that tell two builds of one release apart (the
// ones a desync bundle records). A game's tool names itself and the lockstep it was built on.
std::string version_text(const std::string& name) {
  std::string out = name == "lockstep" ? std::string("lockstep ") + LOCKSTEP_VERSION_STRING
                                       : name + " (lockstep " + LOCKSTEP_VERSION_STRING + ")";
  for (const auto& [key, value] : inspect::build_facts())
    if ((key == "compiler" || key == "target" || key == "build type") && !value.empty()) out += "\n" + key + ": " + value;
  return out;
}
}  // namespace

const ToolInfo& tool() noexcept { return g_tool; }
std::string tool_name() { return std::string(g_tool.name); }

int main(int argc, char** argv, const ToolInfo& info) {
  g_tool = info;
  const std::string name(info.name);
  CLI::App app{name + " — deterministic lockstep simulation kernel and replay harness.\n"
                      "Exit codes: 0 ok, 1 mismatch/desync found, 2 bad input or usage.",
               name};
  app.require_subcommand(1);
  app.set_version_flag("--version", version_text(name), "Print the lockstep release and the build (compiler, target, type), then exit");
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
                              add_spectate(app), add_keygen(app), add_snapshot(app), add_view(app),
                              add_query(app)};
  refuse_negative_unsigned(app);
  app.failure_message(usage_message);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);  // prints help (rc 0) or the usage error
    return rc == 0 ? kExitOk : kExitBadInput;
  }
  try {
    for (const Command& c : commands)
      if (c.app->parsed()) return finish_stdout(c.run());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: error: %s\n", name.c_str(), e.what());
    return kExitBadInput;
  }
  return kExitBadInput;
}

}  // namespace lockstep::cli
