// lockstep query SOURCE "QUERY" [--tick N] [--side K] [--json]
// Asks a state a question in the query language (inspect/query.h, docs/query.md): a replay at
// --tick, a snapshot file or a desync bundle side, as `dump` loads them.
//   lockstep query my.replay --tick 300 "Team, Health where Team.owner == 1 and Health.hp < 50
//                                        order by Health.hp desc limit 5"
// Exit 0 ok; 2 bad input (including malformed query text: the message names the column and
// a caret marks it under the query).
#include "common.h"
#include "inspect_source.h"
#include "query_cli.h"

#include <lockstep/inspect/query.h>

#include <cstdio>
#include <optional>

namespace lockstep::cli {

namespace {
struct QueryArgs {
  std::string source;
  std::string query;
  std::optional<std::uint64_t> tick;
  std::uint32_t side = 0;
  bool json = false;
};

}  // namespace

int report_query_error(bool json, const std::string& query, const inspect::QueryError& err) {
  const std::string message = "query: column " + std::to_string(err.column + 1) + ": " + err.message;
  // The echo is a window of the text around the column, escaped: hostile text neither moves
  // the terminal nor floods it, and the caret still points at the column.
  constexpr std::size_t kBefore = 80, kAfter = 80;  // a whole hand-written query fits
  const std::size_t at = std::min<std::size_t>(err.column, query.size());
  const std::size_t from = at > kBefore ? at - kBefore : 0;
  const std::string head = (from > 0 ? "..." : "") + inspect::printable_excerpt(std::string_view(query).substr(from, at - from), kBefore);
  std::string tail = inspect::printable_excerpt(std::string_view(query).substr(at), kAfter);
  if (query.size() - at > kAfter) tail = tail.substr(0, tail.find("...(")) + "...";
  std::fprintf(stderr, "%s: error: %s\n  %s%s\n  %s^\n", tool_name().c_str(), message.c_str(), head.c_str(), tail.c_str(),
               std::string(head.size(), ' ').c_str());
  if (json) {
    Json j;
    j.begin().field("ok", false).field("exit", int{kExitBadInput}).field("error", message);
    j.field("column", std::uint64_t{err.column} + 1).field("query", inspect::printable_excerpt(query, 4096)).end();
    std::printf("%s\n", j.str().c_str());
  }
  return kExitBadInput;
}

namespace {
int query_cmd(const QueryArgs& a) {
  StateSource src;
  if (int rc = load_state_source(a.source, a.tick, a.side, a.json, src); rc != kExitOk) return rc;
  inspect::CompiledQuery q;
  inspect::QueryError err;
  if (!inspect::compile_query(a.query, src.state, q, err)) return report_query_error(a.json, a.query, err);
  const inspect::QueryResult r = inspect::run_query(q, src.state);
  const std::string text =
      a.json ? inspect::format_query_json(q, src.state, r) + "\n" : inspect::format_query_text(q, src.state, r);
  std::fwrite(text.data(), 1, text.size(), stdout);
  return kExitOk;
}
}  // namespace

Command add_query(CLI::App& root) {
  auto a = std::make_shared<QueryArgs>();
  CLI::App* app = root.add_subcommand("query", "Ask a state a question: entities and fields matching a query (docs/query.md)");
  app->add_option("source", a->source, "Replay, snapshot file or desync bundle")->required();
  app->add_option("query", a->query,
                  "[count] [Comp, ...] [where EXPR] [order by Comp.field [asc|desc]] [skip N] [limit N]")
      ->required();
  app->add_option("--tick", a->tick, "Replays: the tick to query (default: the last)");
  app->add_option("--side", a->side, "Bundles: which side (0 or 1)")->capture_default_str();
  app->add_flag("--json", a->json, "JSON on stdout (fixed-point values as exact decimal strings)");
  app->footer("Examples:\n"
              "  " + tool_name() + " query fixtures/skirmish/skirmish.replay --tick 300 \\\n"
              "      \"Team, Health where Team.owner == 1 and Health.hp < 50 order by Health.hp desc limit 5\"\n"
              "  " + tool_name() + " query fixtures/skirmish/skirmish.replay \"count Team where Team.kind == 1\"\n"
              "  " + tool_name() + " query state.lssnap \"Position where inside(Position.p, [0, 0], [32, 32])\"\n"
              "EXPR: and / or / not / ( ) over Comp.path OP value (== != < <= > >=), "
              "inside(Comp.vec, [x, y], [x, y]), within(Comp.vec, [x, y], r).\n"
              "Exit codes: 0 ok; 2 bad input (malformed query: the column is named and marked).");
  return {app, [a] { return query_cmd(*a); }};
}

}  // namespace lockstep::cli
