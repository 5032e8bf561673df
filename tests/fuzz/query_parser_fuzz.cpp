// libFuzzer target for the query language (inspect/src/query_parse.cpp: tokenizer and
// recursive-descent parser) as `lockstep query` and `dump --where` use it, against the state
// of a skirmish world (8 units, tick 20). Invariants checked on every input (a violation traps):
//   * no crash, hang, stack overflow or unbounded allocation: nesting is bounded by
//     kMaxQueryDepth (the committed corpus holds a seed nested far deeper);
//   * a failure names a column inside the text (column <= size) and says what, and its
//     message holds no control byte (hostile text is echoed escaped, never raw);
//   * what compiles runs, and formats as text and JSON;
//   * printable_excerpt never returns a control or non-ASCII byte and stays bounded.
#include <lockstep/fixtures/fixtures.h>
#include <lockstep/inspect/query.h>
#include <lockstep/inspect/state.h>
#include <lockstep/replay/runner.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>

namespace {

using namespace lockstep;

const inspect::State& skirmish_state() {
  static const inspect::State state = [] {
    replay::SimConfig config;
    config.players = 2;
    config.units = 8;
    config.seed = 3;
    replay::Runner runner(fixtures::skirmish_sim(), config);
    auto bot0 = fixtures::skirmish_sim().make_bot(config, 3, 0);
    auto bot1 = fixtures::skirmish_sim().make_bot(config, 3, 1);
    const std::uint32_t in = fixtures::skirmish_sim().input_type().size;
    std::vector<std::byte> frame(std::size_t{in} * 2);
    for (std::uint64_t t = 0; t < 20; ++t) {
      bot0->generate(t, runner.world(), std::span<std::byte>(frame.data(), in));
      bot1->generate(t, runner.world(), std::span<std::byte>(frame.data() + in, in));
      (void)runner.step(frame);
    }
    return inspect::capture(runner.world().storage());
  }();
  return state;
}

bool clean(std::string_view s) {
  for (char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7f) return false;
  }
  return true;
}

void one(std::string_view text) {
  const inspect::State& state = skirmish_state();
  for (int where_only = 0; where_only < 2; ++where_only) {
    inspect::CompiledQuery q;
    inspect::QueryError err;
    const bool ok = where_only != 0 ? inspect::compile_where(text, state, q, err) : inspect::compile_query(text, state, q, err);
    if (!ok) {
      if (err.column > text.size() || err.message.empty() || !clean(err.message)) __builtin_trap();
      continue;
    }
    const inspect::QueryResult r = inspect::run_query(q, state);
    if (inspect::format_query_text(q, state, r).empty()) __builtin_trap();
    if (inspect::format_query_json(q, state, r).empty()) __builtin_trap();
  }
  const std::string shown = inspect::printable_excerpt(text, 64);
  for (char c : shown) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u >= 0x7f) __builtin_trap();
  }
  if (shown.size() > 64 * 4 + 32) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  one(std::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}
