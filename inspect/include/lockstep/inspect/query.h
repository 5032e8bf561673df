#pragma once
// The query language of `lockstep query` (and `lockstep dump --where`) over an inspect::State
// (docs/query.md, "The query language"):
//
//   [count] [Comp {, Comp}] [where EXPR] [order by Comp.path [asc|desc]] [skip N] [limit N]
//
//   Unit, Position where Unit.owner == 1 and Unit.hp < 10 order by Unit.hp desc limit 5
//
// EXPR is AND / OR / NOT over comparisons and inside(...)/within(...) range tests; it compiles
// to the kernel's Predicate (predicate.h) against descriptors built from the State's own
// schema, so the language and the C++ API share one semantics (exact constants, absent
// components false, total order with ties by slot). Errors carry the byte column of the text.
#include <lockstep/inspect/state.h>
#include <lockstep/query/predicate.h>
#include <lockstep/query/where.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace lockstep::inspect {

// How deeply `not` and parentheses may nest. The parser is recursive descent: without a bound
// `not not ... x` (10,000 times) overflowed the stack. 64 is far beyond any hand-written query.
inline constexpr std::uint32_t kMaxQueryDepth = 64;

// `text` made safe to echo in an error message: bytes outside printable ASCII become \xNN (an
// ESC sequence in a query must not reach the terminal), and text longer than `max_bytes` is
// cut with "...(N more bytes)" (a 120 KiB identifier is not printed in full).
std::string printable_excerpt(std::string_view text, std::size_t max_bytes = 64);

struct QueryError {
  std::uint32_t column = 0;  // 0-based byte offset in the query text
  std::string message;
};

// The State's component types as kernel descriptors (owned; stable addresses).
struct QuerySchema {
  std::vector<std::vector<FieldDescriptor>> fields;  // by component id
  std::vector<TypeDescriptor> types;                 // by component id
  const State* state = nullptr;
};

struct CompiledQuery {
  std::string text;
  bool count = false;
  std::vector<std::uint32_t> components;  // listed component ids (required), in the order written
  Predicate where;                        // always true without `where`
  bool ordered = false;
  OrderBy order;                          // order.field.type points into schema
  std::string order_name;                 // "Unit.hp" as written
  std::uint64_t skip = 0;
  std::uint64_t limit = ~std::uint64_t{0};
  std::unique_ptr<QuerySchema> schema;
};

// Parses and validates `text` against `state`'s schema. False with `err` on any error.
bool compile_query(std::string_view text, const State& state, CompiledQuery& out, QueryError& err);
// Parses only a `where` expression (dump --where): components none, no order/paging.
bool compile_where(std::string_view text, const State& state, CompiledQuery& out, QueryError& err);

struct QueryRow {
  std::uint32_t slot = 0;
  std::uint32_t generation = 0;
  std::uint32_t archetype = 0;
  std::uint32_t row = 0;
};
struct QueryResult {
  std::uint64_t matched = 0;   // entities with every listed component that satisfy `where`
  std::vector<QueryRow> rows;  // the page (order, skip, limit applied); empty for count
};

// Runs a compiled query over the state it was compiled against.
QueryResult run_query(const CompiledQuery& q, const State& state);

// Output. Text: a header line and one aligned row per entity (entity, then every field of
// each listed component, then the order field when not among them); count: the number.
// JSON: {"tick":T,"query":"...","matched":N,"count":K,"rows":[{"entity":"S:G","slot":S,
// "generation":G,"fields":{"Unit.hp":"9.5",...}}]} (fixed/Entity as exact strings, as dump).
std::string format_query_text(const CompiledQuery& q, const State& state, const QueryResult& r);
std::string format_query_json(const CompiledQuery& q, const State& state, const QueryResult& r);

}  // namespace lockstep::inspect
