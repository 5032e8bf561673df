// lockstep dump SOURCE [--tick N] [--side K] [--json] [--component NAME]... [--entity S[:G]]...
//                      [--field NAME]... [--where CONDITION]
// Every entity (slot:gen, archetype) with every component field by field, and every
// resource, by descriptor names; fixed-point as exact decimals (inspect/dump.h).
// Exit 0 ok; 2 bad input.
#include "common.h"
#include "inspect_source.h"
#include "query_cli.h"

#include <lockstep/inspect/dump.h>
#include <lockstep/inspect/query.h>

#include <algorithm>
#include <cstdio>
#include <optional>

namespace lockstep::cli {

namespace {
struct DumpArgs {
  std::string source;
  std::optional<std::uint64_t> tick;
  std::uint32_t side = 0;
  bool json = false;
  inspect::DumpFilter filter;
  bool no_resources = false;
  std::string svg;
  // Given or not, not empty or not: `--where ""` is an empty condition (an error, as "   " is),
  // never "no filter".
  std::optional<std::string> where;
};

int dump_cmd(DumpArgs& a) {
  for (const std::string& e : a.filter.entities) {
    std::uint32_t s = 0, g = 0;
    bool hg = false;
    if (!inspect::parse_entity(e, s, g, hg))
      return report_error(a.json, kExitBadInput, "--entity '" + e + "': expected SLOT or SLOT:GEN");
  }
  if (!a.svg.empty())
    if (int rc = check_output(a.svg, a.json, {a.source}); rc != kExitOk) return rc;
  StateSource src;
  if (int rc = load_state_source(a.source, a.tick, a.side, a.json, src); rc != kExitOk) return rc;
  a.filter.resources = !a.no_resources;
  if (a.where) {
    // The query language's condition (docs/query.md): evaluated once, then a slot filter.
    inspect::CompiledQuery q;
    inspect::QueryError err;
    if (!inspect::compile_where(*a.where, src.state, q, err)) return report_query_error(a.json, *a.where, err);
    const inspect::QueryResult r = inspect::run_query(q, src.state);
    a.filter.where = true;
    for (const inspect::QueryRow& row : r.rows) a.filter.where_slots.push_back(row.slot);
    std::sort(a.filter.where_slots.begin(), a.filter.where_slots.end());
  }
  if (!a.svg.empty())
    if (int rc = write_svg(a.svg, src.state, nullptr, src.label + " tick " + std::to_string(src.state.tick), a.json); rc != kExitOk)
      return rc;
  const std::string text = a.json ? inspect::dump_json(src.state, a.filter) : inspect::dump_text(src.state, a.filter);
  std::fwrite(text.data(), 1, text.size(), stdout);
  if (a.json) std::fputc('\n', stdout);
  return kExitOk;
}
}  // namespace

Command add_dump(CLI::App& root) {
  auto a = std::make_shared<DumpArgs>();
  CLI::App* app = root.add_subcommand("dump", "Print a state field by field (replay at a tick, snapshot file, desync bundle)");
  app->add_option("source", a->source, "Replay, snapshot file or desync bundle")->required();
  app->add_option("--tick", a->tick, "Replays: the tick to dump (default: the last)");
  app->add_option("--side", a->side, "Bundles: which side (0 or 1)")->capture_default_str();
  app->add_option("--component", a->filter.types, "Only these components/resources (repeatable)");
  app->add_option("--entity", a->filter.entities, "Only these entities, SLOT or SLOT:GEN (repeatable)");
  app->add_option("--field", a->filter.fields, "Only these fields, NAME or Type.NAME (repeatable)");
  app->add_option("--where", a->where,
                  "Only entities satisfying this query-language condition, e.g. \"Team.owner == 1 and Health.hp < 50\" "
                  "(docs/query.md)");
  app->add_flag("--no-resources", a->no_resources, "Entities only");
  app->add_option("--svg", a->svg, "Also draw the entities at their marked position field into this SVG file");
  app->add_flag("--json", a->json, "JSON on stdout (fixed-point values as exact decimal strings)");
  app->footer("Examples:\n"
              "  " + tool_name() + " dump fixtures/skirmish/skirmish.replay --tick 300\n"
              "  " + tool_name() + " dump fixtures/skirmish/skirmish.replay --tick 300 --entity 95 --component Weapon\n"
              "  " + tool_name() + " dump desync-synctest-tick4.lsbundle --side 1 --json\n"
              "  " + tool_name() + " dump fixtures/skirmish/skirmish.replay --tick 300 --where \"Health.hp < 100 and Team.owner == 1\"\n"
              "Exit codes: 0 ok; 2 bad input.");
  return {app, [a] { return dump_cmd(*a); }};
}

}  // namespace lockstep::cli
