// lockstep diff A [B] [--tick N] [--tick-b N] [--json] [--limit N]
// Field-level diff of two states (inspect/diff.h): snapshot files, bundle sides, replays at a
// tick. One bundle alone diffs its two sides. Exit 0 equal; 1 different; 2 bad input.
#include "common.h"
#include "inspect_source.h"

#include <lockstep/inspect/diff.h>
#include <lockstep/inspect/dump.h>

#include <cstdio>
#include <optional>

namespace lockstep::cli {

namespace {
struct DiffArgs {
  std::string a, b;
  std::optional<std::uint64_t> tick, tick_b;
  std::uint32_t side_a = 0, side_b = 1;
  std::uint64_t limit = 50;
  std::string svg;
  bool json = false;
};

int diff_cmd(const DiffArgs& a) {
  if (!a.svg.empty())
    if (int rc = check_output(a.svg, a.json, {a.a, a.b}); rc != kExitOk) return rc;
  StateSource sa, sb;
  if (a.b.empty()) {
    // One argument: a bundle's two sides.
    if (int rc = load_state_source(a.a, a.tick, a.side_a, a.json, sa, "--side-a"); rc != kExitOk) return rc;
    if (!sa.is_bundle) return report_error(a.json, kExitBadInput, a.a + ": give two states, or one desync bundle");
    if (int rc = load_state_source(a.a, a.tick, a.side_b, a.json, sb, "--side-b"); rc != kExitOk) return rc;
  } else {
    if (int rc = load_state_source(a.a, a.tick, a.side_a, a.json, sa, "--side-a"); rc != kExitOk) return rc;
    if (int rc = load_state_source(a.b, a.tick_b ? a.tick_b : a.tick, sa.is_bundle && a.a == a.b ? a.side_b : 0, a.json, sb,
                                   "--side-b");
        rc != kExitOk)
      return rc;
  }
  inspect::DiffOptions o;
  o.limit = a.limit;
  const inspect::StateDiff d = inspect::diff(sa.state, sb.state, o);
  if (!a.svg.empty())
    if (int rc = write_svg(a.svg, sa.state, &d, "tick " + std::to_string(d.tick_a) + ": " + sa.label + " | " + sb.label, a.json);
        rc != kExitOk)
      return rc;
  std::string out;
  if (a.json) {
    out = "{\"a\":";
    inspect::append_json_string(out, sa.label);
    out += ",\"b\":";
    inspect::append_json_string(out, sb.label);
    if (sa.is_bundle && !sa.bundle.system.empty()) {
      out += ",\"system\":";
      inspect::append_json_string(out, sa.bundle.system);
    }
    out += ",\"diff\":" + inspect::format_json(d) + "}\n";
  } else {
    out = "A: " + sa.label + "\nB: " + sb.label + "\n";
    if (sa.is_bundle) out += inspect::describe_bundle(sa.bundle);
    out += inspect::format_text(d);
  }
  std::fwrite(out.data(), 1, out.size(), stdout);
  return d.equal() ? kExitOk : kExitMismatch;
}
}  // namespace

Command add_diff(CLI::App& root) {
  auto a = std::make_shared<DiffArgs>();
  CLI::App* app = root.add_subcommand("diff", "Field-level diff of two states (snapshots, bundles, replays at a tick)");
  app->add_option("a", a->a, "First state: replay, snapshot file or desync bundle")->required();
  app->add_option("b", a->b, "Second state (omit to diff a bundle's two sides)");
  app->add_option("--tick", a->tick, "Replays: the tick (default: the last)");
  app->add_option("--tick-b", a->tick_b, "Replays: the tick of B (default: --tick)");
  app->add_option("--side-a", a->side_a, "Bundles: side of A")->capture_default_str();
  app->add_option("--side-b", a->side_b, "Bundles: side of B when A and B are the same bundle")->capture_default_str();
  app->add_option("--limit", a->limit, "Differences shown in detail (all are counted)")->capture_default_str();
  app->add_option("--svg", a->svg, "Also draw A's entities (diverged ones highlighted and labelled) into this SVG file");
  app->add_flag("--json", a->json, "JSON on stdout");
  app->footer("Examples:\n"
              "  " + tool_name() + " diff desync-synctest-tick4.lsbundle\n"
              "  " + tool_name() + " diff a.lssnap b.lssnap --json\n"
              "  " + tool_name() + " diff mine.replay theirs.replay --tick 140\n"
              "Exit codes: 0 equal; 1 the states differ; 2 bad input.");
  return {app, [a] { return diff_cmd(*a); }};
}

}  // namespace lockstep::cli
