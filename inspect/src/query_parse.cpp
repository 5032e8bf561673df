// The query language's tokenizer and recursive-descent parser (query.h, docs/query.md). It
// validates every name against the State's schema and compiles `where` into the kernel's
// Predicate, so errors name the column of the text that is wrong.
#include <lockstep/inspect/query.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <string>

namespace lockstep::inspect {

namespace {

enum class Tok { End, Word, Number, Op, Punct };

struct Token {
  Tok kind = Tok::End;
  std::string_view text;
  std::uint32_t column = 0;
};

bool word_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) != 0 || c == '_'; }
bool word_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_'; }
bool digit(char c) { return c >= '0' && c <= '9'; }

// Token text echoed in a message: escaped and cut (printable_excerpt).
std::string shown(std::string_view t) { return printable_excerpt(t, 64); }

// Keywords are lowercase and case-sensitive: `Order` is the skirmish's component, `order` the clause.
bool iequals(std::string_view a, std::string_view b) { return a == b; }

class Parser {
 public:
  Parser(std::string_view text, const State& state, CompiledQuery& out, QueryError& err)
      : s_(text), state_(state), q_(out), err_(err) {}

  bool query() {
    if (!next()) return false;
    if (keyword("count")) {
      q_.count = true;
      if (!next()) return false;
    }
    if (tok_.kind == Tok::Word && !is_clause_keyword()) {
      for (;;) {
        if (tok_.kind != Tok::Word || is_keyword(tok_.text)) return fail(tok_.column, "expected a component name");
        const std::int32_t id = state_.component_id(tok_.text);
        if (id < 0) return fail(tok_.column, "no component named '" + shown(tok_.text) + "'" + known_components());
        if (std::find(q_.components.begin(), q_.components.end(), static_cast<std::uint32_t>(id)) != q_.components.end())
          return fail(tok_.column, "component '" + shown(tok_.text) + "' listed twice");
        q_.components.push_back(static_cast<std::uint32_t>(id));
        if (!next()) return false;
        if (!punct(",")) break;
        if (!next()) return false;
      }
    }
    if (keyword("where")) {
      if (!next()) return false;
      if (!expr(q_.where)) return false;
    }
    if (keyword("order")) {
      if (!next()) return false;
      if (!keyword("by")) return fail(tok_.column, "expected 'by' after 'order'");
      if (!next()) return false;
      const std::uint32_t col = tok_.column;
      if (!path(q_.order.field)) return false;
      if (!q_.order.field.scalar()) return fail(col, "order by needs one scalar element (index an array or vector)");
      q_.ordered = true;
      q_.order_name = std::string(s_.substr(col, tok_.column - col));
      while (!q_.order_name.empty() && q_.order_name.back() == ' ') q_.order_name.pop_back();
      if (keyword("asc") || keyword("desc")) {
        q_.order.order = keyword("desc") ? Order::Desc : Order::Asc;
        if (!next()) return false;
      }
    }
    if (keyword("skip")) {
      if (!next()) return false;
      if (!count_value(q_.skip)) return false;
    }
    if (keyword("limit")) {
      if (!next()) return false;
      if (!count_value(q_.limit)) return false;
    }
    if (tok_.kind != Tok::End)
      return fail(tok_.column, "unexpected '" + shown(tok_.text) +
                                   "': expected ',', 'where', 'order by', 'skip', 'limit' or the end of the query");
    return true;
  }

  bool where_only() {
    if (!next()) return false;
    if (!expr(q_.where)) return false;
    if (tok_.kind != Tok::End) return fail(tok_.column, "unexpected '" + shown(tok_.text) + "' after the expression");
    return true;
  }

 private:
  // ---- tokens ----
  bool next() {
    while (pos_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[pos_])) != 0) ++pos_;
    tok_ = Token{};
    tok_.column = static_cast<std::uint32_t>(pos_);
    if (pos_ >= s_.size()) return true;
    const std::size_t start = pos_;
    const char c = s_[pos_];
    if (word_start(c)) {
      ++pos_;
      for (;;) {
        while (pos_ < s_.size() && word_char(s_[pos_])) ++pos_;
        if (pos_ + 1 < s_.size() && s_[pos_] == '.' && word_start(s_[pos_ + 1])) {
          ++pos_;
          continue;
        }
        if (pos_ < s_.size() && s_[pos_] == '[') {
          std::size_t k = pos_ + 1;
          while (k < s_.size() && word_char(s_[k])) ++k;
          if (k < s_.size() && s_[k] == ']') {
            pos_ = k + 1;
            continue;
          }
        }
        break;
      }
      tok_.kind = Tok::Word;
    } else if (digit(c) || ((c == '-' || c == '+' || c == '.') && pos_ + 1 < s_.size() &&
                            (digit(s_[pos_ + 1]) || s_[pos_ + 1] == '.'))) {
      ++pos_;
      while (pos_ < s_.size()) {
        const char d = s_[pos_];
        if (digit(d) || d == '.' || d == ':') {
          ++pos_;
        } else if ((d == 'e' || d == 'E') && pos_ + 1 < s_.size() &&
                   (digit(s_[pos_ + 1]) || s_[pos_ + 1] == '-' || s_[pos_ + 1] == '+')) {
          pos_ += 2;
        } else {
          break;
        }
      }
      tok_.kind = Tok::Number;
    } else if (c == '=' || c == '!' || c == '<' || c == '>') {
      ++pos_;
      if (pos_ < s_.size() && s_[pos_] == '=') ++pos_;
      tok_.kind = Tok::Op;
      if (s_.substr(start, pos_ - start) == "!")
        return fail(tok_.column, "unknown operator '!': use '!=' or 'not'");
    } else if (c == ',' || c == '(' || c == ')' || c == '[' || c == ']') {
      ++pos_;
      tok_.kind = Tok::Punct;
    } else {
      return fail(tok_.column, "unexpected character '" + shown(std::string_view(&s_[pos_], 1)) + "'");
    }
    tok_.text = s_.substr(start, pos_ - start);
    return true;
  }

  bool keyword(std::string_view k) const { return tok_.kind == Tok::Word && iequals(tok_.text, k); }
  bool punct(std::string_view p) const { return tok_.kind == Tok::Punct && tok_.text == p; }
  static bool is_keyword(std::string_view w) {
    for (const char* k : {"count", "where", "order", "by", "asc", "desc", "skip", "limit", "and", "or", "not", "inside",
                          "within", "true", "false", "null"})
      if (iequals(w, k)) return true;
    return false;
  }
  bool is_clause_keyword() const {
    return keyword("where") || keyword("order") || keyword("skip") || keyword("limit");
  }
  std::string known_components() const {
    std::string s = " (components:";
    for (const Type& t : state_.components) s += " " + t.name;
    return s + ")";
  }

  bool fail(std::uint32_t column, std::string message) {
    if (failed_) return false;
    failed_ = true;
    err_.column = column;
    err_.message = std::move(message);
    return false;
  }

  bool count_value(std::uint64_t& out) {
    if (tok_.kind != Tok::Number) return fail(tok_.column, "expected a non-negative integer");
    std::uint64_t v = 0;
    for (char c : tok_.text) {
      if (!digit(c)) return fail(tok_.column, "expected a non-negative integer, got '" + shown(tok_.text) + "'");
      if (v > (~std::uint64_t{0} - 9) / 10) return fail(tok_.column, "number too large");
      v = v * 10 + static_cast<std::uint64_t>(c - '0');
    }
    out = v;
    return next();
  }

  // ---- paths: Comp.field... against the schema ----
  bool path(FieldRef& out) {
    if (tok_.kind != Tok::Word || is_keyword(tok_.text))
      return fail(tok_.column, "expected a field path Component.field");
    const std::string_view t = tok_.text;
    std::size_t dot = t.find('.');
    std::int32_t id = -1;
    // Type names may contain dots: the first known prefix wins.
    for (; dot != std::string_view::npos; dot = t.find('.', dot + 1)) {
      id = state_.component_id(t.substr(0, dot));
      if (id >= 0) break;
    }
    if (id < 0) {
      const std::size_t n = t.find('.');
      if (n == std::string_view::npos)
        return fail(tok_.column, "expected Component.field, got '" + shown(t) + "'");
      return fail(tok_.column, "no component named '" + shown(t.substr(0, n)) + "'" + known_components());
    }
    PredicateError perr;
    const Status s = resolve_field(q_.schema->types[static_cast<std::size_t>(id)], t.substr(dot + 1), out, &perr);
    if (!s.ok()) return fail(tok_.column + static_cast<std::uint32_t>(dot + 1) + perr.column, perr.message);
    return next();
  }

  // ---- expressions ----
  bool expr(Predicate& out) {
    Predicate left;
    if (!conj(left)) return false;
    while (keyword("or")) {
      const std::uint32_t col = tok_.column;
      if (!next()) return false;
      Predicate right;
      if (!conj(right)) return false;
      left = left || right;
      if (!left.status().ok()) return fail(col, left.status().message());
    }
    out = left;
    return true;
  }
  bool conj(Predicate& out) {
    Predicate left;
    if (!unary(left)) return false;
    while (keyword("and")) {
      const std::uint32_t col = tok_.column;
      if (!next()) return false;
      Predicate right;
      if (!unary(right)) return false;
      left = left && right;
      if (!left.status().ok()) return fail(col, left.status().message());
    }
    out = left;
    return true;
  }
  bool unary(Predicate& out) {
    if ((keyword("not") || punct("(")) && depth_ == kMaxQueryDepth)
      return fail(tok_.column, "nested deeper than " + std::to_string(kMaxQueryDepth) + " levels of 'not' and parentheses");
    ++depth_;
    const bool ok = unary_nested(out);
    --depth_;
    return ok;
  }
  bool unary_nested(Predicate& out) {
    if (keyword("not")) {
      const std::uint32_t col = tok_.column;
      if (!next()) return false;
      Predicate inner;
      if (!unary(inner)) return false;
      out = !inner;
      if (!out.status().ok()) return fail(col, out.status().message());
      return true;
    }
    if (punct("(")) {
      const std::uint32_t col = tok_.column;
      if (!next()) return false;
      if (!expr(out)) return false;
      if (!punct(")")) return fail(tok_.column, "expected ')' to close the '(' at column " + std::to_string(col + 1));
      return next();
    }
    if (keyword("inside") || keyword("within")) return range(out);
    return comparison(out);
  }
  bool comparison(Predicate& out) {
    if (tok_.kind == Tok::End) return fail(tok_.column, "expected a condition (Component.field OP value)");
    FieldRef f;
    const std::uint32_t path_col = tok_.column;
    const std::string_view path_text = tok_.text;
    if (!path(f)) return false;
    if (!f.scalar())
      return fail(path_col, "'" + shown(path_text) + "' has " + std::to_string(f.elements) +
                                " elements: compare one of them ([i], or .x/.y/.z for a vector), or use inside/within");
    if (tok_.kind != Tok::Op)
      return fail(tok_.column, "expected a comparison operator (== != < <= > >=) after '" + shown(path_text) + "'");
    CompareOp op;
    const std::string_view o = tok_.text;
    if (o == "==" || o == "=") op = CompareOp::Eq;
    else if (o == "!=") op = CompareOp::Ne;
    else if (o == "<") op = CompareOp::Lt;
    else if (o == "<=") op = CompareOp::Le;
    else if (o == ">") op = CompareOp::Gt;
    else if (o == ">=") op = CompareOp::Ge;
    else return fail(tok_.column, "unknown operator '" + shown(o) + "'");
    if (!next()) return false;
    if (tok_.kind != Tok::Number && tok_.kind != Tok::Word)
      return fail(tok_.column, "expected a value after '" + shown(o) + "'");
    PredicateLiteral lit;
    PredicateError perr;
    if (!parse_literal(f, tok_.text, lit, &perr).ok()) return fail(tok_.column + perr.column, perr.message);
    out = compare(f, op, lit);
    if (!out.status().ok()) return fail(path_col, out.status().message());
    return next();
  }
  // [x, y(, z)] of fixed decimals; `round` -1 = ceil (a lower bound), +1 = floor (upper), 0 = exact only.
  bool vector(std::int64_t* v, std::uint32_t dims, int round) {
    if (!punct("[")) return fail(tok_.column, "expected '[' starting a vector of " + std::to_string(dims) + " numbers");
    for (std::uint32_t k = 0; k < dims; ++k) {
      if (!next()) return false;
      if (!number(v[k], round)) return false;
      if (!next()) return false;
      if (k + 1 < dims && !punct(","))
        return fail(tok_.column, "expected ',' (the field has " + std::to_string(dims) + " elements)");
    }
    if (!punct("]")) return fail(tok_.column, "expected ']' (the field has " + std::to_string(dims) + " elements)");
    return next();
  }
  bool number(std::int64_t& raw, int round) {
    bool exact = true;
    if (tok_.kind != Tok::Number || !parse_fixed_exact(tok_.text, raw, exact))
      return fail(tok_.column, "expected a decimal number within the fixed range");
    if (exact) return true;
    if (round == 0)
      return fail(tok_.column, "'" + shown(tok_.text) +
                                   "' is not a multiple of 1/65536: within() needs exactly representable centre and radius");
    if (round < 0) {
      if (raw == INT64_MAX) return fail(tok_.column, "lower bound above the fixed range");
      ++raw;  // ceil: the smallest raw >= the decimal
    }
    return true;
  }
  bool range(Predicate& out) {
    const bool is_inside = keyword("inside");
    const std::uint32_t col = tok_.column;
    if (!next()) return false;
    if (!punct("(")) return fail(tok_.column, std::string("expected '(' after '") + (is_inside ? "inside" : "within") + "'");
    if (!next()) return false;
    FieldRef f;
    const std::uint32_t path_col = tok_.column;
    if (!path(f)) return false;
    if (f.kind != FieldKind::Fixed || f.element_size != 8 || (f.elements != 2 && f.elements != 3))
      return fail(path_col, "inside/within need a vec2 or vec3 field (2 or 3 fixed elements)");
    if (!punct(",")) return fail(tok_.column, "expected ','");
    if (!next()) return false;
    std::int64_t a[3] = {}, b[3] = {};
    if (is_inside) {
      if (!vector(a, f.elements, -1)) return false;
      if (!punct(",")) return fail(tok_.column, "expected ',' before the upper corner");
      if (!next()) return false;
      if (!vector(b, f.elements, +1)) return false;
      out = inside(f, a, b);
    } else {
      if (!vector(a, f.elements, 0)) return false;
      if (!punct(",")) return fail(tok_.column, "expected ',' before the radius");
      if (!next()) return false;
      if (!number(b[0], 0)) return false;
      if (!next()) return false;
      out = within(f, a, b[0]);
    }
    if (!out.status().ok()) return fail(col, out.status().message());
    if (!punct(")")) return fail(tok_.column, "expected ')'");
    return next();
  }

  std::string_view s_;
  const State& state_;
  CompiledQuery& q_;
  QueryError& err_;
  std::size_t pos_ = 0;
  Token tok_;
  bool failed_ = false;
  std::uint32_t depth_ = 0;  // `not` / `(` levels open (kMaxQueryDepth)
};

std::unique_ptr<QuerySchema> make_schema(const State& state) {
  auto schema = std::make_unique<QuerySchema>();
  schema->state = &state;
  schema->fields.resize(state.components.size());
  schema->types.resize(state.components.size());
  for (std::size_t c = 0; c < state.components.size(); ++c) {
    const Type& t = state.components[c];
    for (const Field& f : t.fields)
      schema->fields[c].push_back(FieldDescriptor{f.name.c_str(), f.offset, f.element_size, f.count, f.kind});
    schema->types[c] = TypeDescriptor{t.name.c_str(), t.size, 1, schema->fields[c].data(),
                                      static_cast<std::uint32_t>(schema->fields[c].size())};
  }
  return schema;
}

}  // namespace

std::string printable_excerpt(std::string_view text, std::size_t max_bytes) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  const std::size_t n = std::min(text.size(), max_bytes);
  for (std::size_t i = 0; i < n; ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c >= 0x20 && c < 0x7f && c != '\\') {
      out.push_back(static_cast<char>(c));
    } else if (c == '\\') {
      out += "\\\\";
    } else {
      out += "\\x";
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 15]);
    }
  }
  if (text.size() > n) out += "...(" + std::to_string(text.size() - n) + " more bytes)";
  return out;
}

bool compile_query(std::string_view text, const State& state, CompiledQuery& out, QueryError& err) {
  CompiledQuery q;
  q.text = std::string(text);
  q.schema = make_schema(state);
  Parser p(q.text, state, q, err);
  if (!p.query()) return false;
  out = std::move(q);
  return true;
}

bool compile_where(std::string_view text, const State& state, CompiledQuery& out, QueryError& err) {
  CompiledQuery q;
  q.text = std::string(text);
  q.schema = make_schema(state);
  Parser p(q.text, state, q, err);
  if (!p.where_only()) return false;
  out = std::move(q);
  return true;
}

}  // namespace lockstep::inspect
