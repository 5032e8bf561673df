// lockstep convert IN OUT — binary ↔ JSON (direction from OUT's extension).
#include "common.h"

#include <cstdio>

namespace lockstep::cli {

namespace {
struct ConvertArgs {
  std::string in, out;
  bool json = false;
};

int convert_cmd(const ConvertArgs& a) {
  if (int rc = check_output(a.out, a.json, {a.in}); rc != kExitOk) return rc;
  replay::Replay r;
  replay::ReplayStatus st = replay::read_replay_file(a.in, r);
  if (!st.ok()) return report_error(a.json, kExitBadInput, st.message, &st);
  print_warnings(r.warnings);
  const bool to_json = a.out.size() >= 5 && a.out.substr(a.out.size() - 5) == ".json";
  st = replay::write_replay_file(a.out, r, to_json);
  if (!st.ok()) return report_error(a.json, kExitBadInput, st.message, &st);
  if (a.json) {
    Json j;
    j.begin().field("ok", true).field("input", a.in).field("output", a.out).field("format", to_json ? "json" : "binary")
        .field("ticks", r.frame_count()).end();
    std::printf("%s\n", j.str().c_str());
  } else {
    std::printf("converted %s -> %s (%s, %llu ticks)\n", a.in.c_str(), a.out.c_str(), to_json ? "JSON" : "binary",
                static_cast<unsigned long long>(r.frame_count()));
  }
  return kExitOk;
}
}  // namespace

Command add_convert(CLI::App& root) {
  auto a = std::make_shared<ConvertArgs>();
  CLI::App* app = root.add_subcommand("convert", "Convert a replay between the binary and the JSON form");
  app->add_option("input", a->in, "Input replay (binary or JSON, detected from its content)")->required();
  app->add_option("output", a->out, "Output file: *.json writes JSON, anything else binary")->required();
  app->add_flag("--json", a->json, "Machine-readable summary on stdout");
  app->footer("Examples:\n"
              "  " + tool_name() + " convert fixtures/duel/duel.replay duel.json     # edit by hand...\n"
              "  " + tool_name() + " convert duel.json duel2.replay                   # ...and back\n"
              "binary -> JSON -> binary reproduces the original bytes.\n"
              "Exit codes: 0 ok, 2 unreadable input or unwritable output.");
  return {app, [a] { return convert_cmd(*a); }};
}

}  // namespace lockstep::cli
