// Running a compiled query over an inspect::State and formatting the answer (query.h). The
// rows are walked in the kernel's visit order (archetype id, then slot); the predicate is
// the kernel's, read from canonical little-endian bytes; ordering uses the kernel's
// Selector, so the language and the C++ API order identically (ties by slot id).
#include <lockstep/inspect/dump.h>
#include <lockstep/inspect/query.h>

#include <algorithm>
#include <string>

namespace lockstep::inspect {

namespace {

std::int32_t column_of(const Archetype& a, std::uint32_t component) {
  const auto it = std::lower_bound(a.components.begin(), a.components.end(), component);
  if (it == a.components.end() || *it != component) return -1;
  return static_cast<std::int32_t>(it - a.components.begin());
}

// A FieldRef as an inspect Field (printing one element or one Entity).
Field as_field(const FieldRef& r) {
  Field f;
  f.name = "";
  f.offset = r.offset;
  f.element_size = r.element_size;
  f.count = r.elements;
  f.kind = r.kind;
  return f;
}

struct Column {
  std::string name;                 // "Unit.hp"
  std::uint32_t component = 0;
  Field field;
};

std::vector<Column> columns_of(const CompiledQuery& q, const State& state) {
  std::vector<Column> cols;
  for (std::uint32_t c : q.components)
    for (const Field& f : state.components[c].fields) cols.push_back({state.components[c].name + "." + f.name, c, f});
  if (q.ordered) {
    const auto id = static_cast<std::uint32_t>(q.order.field.type - q.schema->types.data());
    bool shown = false;
    for (const Column& col : cols)
      shown |= col.component == id && col.field.offset == q.order.field.offset && col.field.size() ==
                                                                                    std::uint32_t{q.order.field.element_size} * q.order.field.elements;
    if (!shown) cols.push_back({q.order_name, id, as_field(q.order.field)});
  }
  return cols;
}

void append_json_unit(std::string& out, const Field& f, const std::byte* v, std::uint32_t u) {
  if (f.kind == FieldKind::Fixed || f.kind == FieldKind::Entity) {
    out.push_back('"');
    append_unit(out, f, v, u);
    out.push_back('"');
  } else {
    append_unit(out, f, v, u);
  }
}

}  // namespace

QueryResult run_query(const CompiledQuery& q, const State& state) {
  QueryResult result;
  const QuerySchema& schema = *q.schema;
  std::vector<OrderItem> buffer(static_cast<std::size_t>(std::min<std::uint64_t>(state.live_entities(), ~std::uint32_t{0})));
  detail::Selector selector(buffer, q.skip, q.limit, q.ordered);
  const auto order_component =
      q.ordered ? static_cast<std::uint32_t>(q.order.field.type - schema.types.data()) : ~std::uint32_t{0};
  for (std::uint32_t a = 0; a < state.archetypes.size(); ++a) {
    const Archetype& arch = state.archetypes[a];
    bool candidate = true;
    for (std::uint32_t c : q.components) candidate &= column_of(arch, c) >= 0;
    if (!candidate) continue;
    const std::int32_t order_col = q.ordered ? column_of(arch, order_component) : -1;
    for (std::uint32_t r = 0; r < arch.slots.size(); ++r) {
      auto value_of = [&](const TypeDescriptor& t) -> const std::byte* {
        const auto c = static_cast<std::uint32_t>(&t - schema.types.data());
        const std::int32_t col = column_of(arch, c);
        if (col < 0) return nullptr;
        return arch.columns[static_cast<std::size_t>(col)].data() + std::size_t{r} * state.components[c].size;
      };
      if (!q.where.isAlways() && !q.where.test(value_of, true)) continue;
      const std::uint32_t slot = arch.slots[r];
      OrderItem item;
      item.entity = Entity{slot, state.generations[slot]};
      if (q.ordered) {
        if (order_col < 0) {
          item.key = 0;
        } else {
          const std::byte* v = arch.columns[static_cast<std::size_t>(order_col)].data() +
                               std::size_t{r} * state.components[order_component].size;
          item.key = detail::order_key(q.order.field, v, q.order.order, true);
        }
      }
      item.absent = q.ordered && order_col < 0 ? 1u : 0u;
      selector.push(item);
    }
  }
  SelectResult sr;
  (void)selector.finish(sr);  // the buffer holds every live entity: never short
  result.matched = sr.matched;
  if (q.count) return result;
  const std::vector<State::Location> loc = state.locate();
  for (std::uint32_t i = 0; i < sr.count; ++i) {
    const Entity e = buffer[i].entity;
    result.rows.push_back({e.slot, e.generation, loc[e.slot].archetype, loc[e.slot].row});
  }
  return result;
}

std::string format_query_text(const CompiledQuery& q, const State& state, const QueryResult& r) {
  if (q.count) return std::to_string(r.matched) + "\n";
  const std::vector<Column> cols = columns_of(q, state);
  std::vector<std::vector<std::string>> table;
  std::vector<std::string> header{"entity"};
  for (const Column& c : cols) header.push_back(c.name);
  table.push_back(header);
  for (const QueryRow& row : r.rows) {
    std::vector<std::string> line{std::to_string(row.slot) + ":" + std::to_string(row.generation)};
    for (const Column& c : cols) {
      const std::span<const std::byte> v = state.value(row.archetype, row.row, c.component);
      line.push_back(v.empty() ? "-" : field_text(c.field, v.data()));
    }
    table.push_back(std::move(line));
  }
  std::vector<std::size_t> width(header.size(), 0);
  for (const auto& line : table)
    for (std::size_t i = 0; i < line.size(); ++i) width[i] = std::max(width[i], line[i].size());
  std::string out;
  for (const auto& line : table) {
    std::string text;
    for (std::size_t i = 0; i < line.size(); ++i) {
      if (i != 0) text += "  ";
      text += line[i];
      if (i + 1 < line.size()) text.append(width[i] - line[i].size(), ' ');
    }
    out += text + "\n";
  }
  out += "(" + std::to_string(r.rows.size()) + " of " + std::to_string(r.matched) + " matching entities, tick " +
         std::to_string(state.tick) + ")\n";
  return out;
}

std::string format_query_json(const CompiledQuery& q, const State& state, const QueryResult& r) {
  std::string out = "{\"tick\":" + std::to_string(state.tick) + ",\"query\":";
  append_json_string(out, q.text);
  out += ",\"matched\":" + std::to_string(r.matched);
  if (q.count) return out + "}";
  out += ",\"count\":" + std::to_string(r.rows.size()) + ",\"rows\":[";
  const std::vector<Column> cols = columns_of(q, state);
  for (std::size_t i = 0; i < r.rows.size(); ++i) {
    const QueryRow& row = r.rows[i];
    if (i != 0) out.push_back(',');
    out += "{\"entity\":\"" + std::to_string(row.slot) + ":" + std::to_string(row.generation) +
           "\",\"slot\":" + std::to_string(row.slot) + ",\"generation\":" + std::to_string(row.generation) +
           ",\"fields\":{";
    bool first = true;
    for (const Column& c : cols) {
      const std::span<const std::byte> v = state.value(row.archetype, row.row, c.component);
      if (!first) out.push_back(',');
      first = false;
      append_json_string(out, c.name);
      out.push_back(':');
      if (v.empty()) {
        out += "null";
        continue;
      }
      const std::uint32_t n = c.field.units();
      if (n == 1) {
        append_json_unit(out, c.field, v.data(), 0);
        continue;
      }
      out.push_back('[');
      for (std::uint32_t u = 0; u < n; ++u) {
        if (u != 0) out.push_back(',');
        append_json_unit(out, c.field, v.data(), u);
      }
      out.push_back(']');
    }
    out += "}}";
  }
  return out + "]}";
}

}  // namespace lockstep::inspect
