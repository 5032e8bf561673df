// Syntax pass over a JSON replay before cereal reads it: cereal's JSON archive ignores
// rapidjson's parse error and then fails on its first lookup with "rapidjson internal
// assertion failure: IsObject()", which names no position; and rapidjson keeps duplicate
// keys, of which cereal silently reads one. This pass reports both with line:column.
// It also refuses numbers that are not integers: a replay holds none (fixed-point values are
// raw integers), and rapidjson's floating-point conversion has undefined behaviour on some
// inputs (a zero significand with a large exponent, "0e0160", calls clz(0)). The pass reads
// numbers as raw text, so no conversion runs before the refusal.
#include "replay_io.h"

#include <rapidjson/error/en.h>
#include <rapidjson/reader.h>

#include <string>
#include <vector>

namespace lockstep::replay::replay_detail {

namespace {

struct LineColumn {
  std::uint64_t line = 1, column = 1;
};
LineColumn line_column(std::string_view text, std::size_t offset) {
  LineColumn lc;
  for (std::size_t i = 0; i < offset && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++lc.line;
      lc.column = 1;
    } else {
      ++lc.column;
    }
  }
  return lc;
}

// The JSON replay's shape (replay_json.cpp's JsonReplay), checked before cereal reads it: a
// value of the wrong type made cereal stop with "rapidjson internal assertion failure" at byte
// 0, naming neither the key nor the place. Unknown keys are not checked (cereal ignores them).
enum class Kind { Object, Array, String, Bool, U32, U64, Null };
struct Node {
  Kind kind;
  const Node* element = nullptr;  // arrays
  std::vector<std::pair<std::string_view, const Node*>> members{};  // objects
};
const Node kString{Kind::String}, kBool{Kind::Bool}, kU32{Kind::U32}, kU64{Kind::U64};
const Node kStrings{Kind::Array, &kString}, kU32s{Kind::Array, &kU32};
const Node kConfig{Kind::Object, nullptr, {{"players", &kU32}, {"units", &kU32}, {"seed", &kU64}, {"params", &kU32s}}};
const Node kHash{Kind::Object, nullptr,
                 {{"tick", &kU64}, {"total", &kString}, {"entities", &kString}, {"archetypes", &kString},
                  {"resources", &kString}, {"components", &kStrings}}};
const Node kHashes{Kind::Array, &kHash};
const Node kCheckpoint{Kind::Object, nullptr, {{"tick", &kU64}, {"snapshot", &kString}}};
const Node kCheckpoints{Kind::Array, &kCheckpoint};
const Node kReplay{Kind::Object, nullptr,
                   {{"format_version", &kU32}, {"sim", &kString}, {"sim_version", &kU32}, {"input_schema", &kString},
                    {"input_size", &kU32}, {"config", &kConfig}, {"block_ticks", &kU32}, {"hashes", &kBool},
                    {"component_hashes", &kBool}, {"checkpoint_interval", &kU32}, {"components", &kStrings},
                    {"complete", &kBool}, {"frames", &kStrings}, {"tick_hashes", &kHashes},
                    {"checkpoints", &kCheckpoints}}};
const Node kDocument{Kind::Object, nullptr, {{"lockstep_replay", &kReplay}}};

const char* describe(Kind k) {
  switch (k) {
    case Kind::Object: return "an object";
    case Kind::Array: return "an array";
    case Kind::String: return "a string";
    case Kind::Bool: return "true or false";
    case Kind::U32: return "an integer 0..4294967295";
    case Kind::U64: return "an integer 0..18446744073709551615";
    case Kind::Null: return "null";
  }
  return "?";
}

// Digits only, no sign, and not above `max` (compared as text: no conversion to overflow).
bool fits_unsigned(std::string_view digits, std::string_view max) {
  if (digits.empty() || digits.size() > max.size()) return false;
  for (char c : digits)
    if (c < '0' || c > '9') return false;
  return digits.size() < max.size() || digits <= max;
}

// SAX handler: one key list per open object; a repeated key stops the parse. The first value
// whose type is not the one the replay format has under that key is remembered and reported
// once the document parsed: a syntax error anywhere is reported first, as before.
struct DuplicateKeys : rapidjson::BaseReaderHandler<rapidjson::UTF8<>, DuplicateKeys> {
  const rapidjson::StringStream* stream = nullptr;
  std::vector<std::vector<std::string>> open;
  std::string duplicate;
  std::size_t duplicate_end = 0;  // offset just after the repeated key
  std::string non_integer;
  std::size_t non_integer_at = 0;  // offset of the number's first byte
  struct Level {
    const Node* node = nullptr;  // nullptr: not part of the format (not checked)
    std::string path;            // "lockstep_replay.config" (for messages)
    std::string key;             // objects: the key just read
    std::uint64_t index = 0;     // arrays: the next element's index
  };
  std::vector<Level> levels;
  std::string wrong_type;
  std::size_t wrong_type_at = 0;

  // The schema node and path of the value about to be read.
  std::pair<const Node*, std::string> expected() {
    if (levels.empty()) return {&kDocument, std::string()};
    Level& l = levels.back();
    std::string where = l.path.empty() ? std::string() : l.path + (l.node != nullptr && l.node->kind == Kind::Array ? "" : ".");
    if (l.node != nullptr && l.node->kind == Kind::Array) {
      where += "[" + std::to_string(l.index++) + "]";
      return {l.node->element, where};
    }
    where += l.key;
    if (l.node != nullptr)
      for (const auto& [k, n] : l.node->members)
        if (k == l.key) return {n, where};
    return {nullptr, where};
  }
  bool check(Kind got, std::string_view number = {}) {
    const auto [node, where] = expected();
    if (node == nullptr) return true;
    bool ok = node->kind == got;
    if (got == Kind::U64 && (node->kind == Kind::U32 || node->kind == Kind::U64))
      ok = fits_unsigned(number, node->kind == Kind::U32 ? "4294967295" : "18446744073709551615");
    if (ok || !wrong_type.empty()) return true;
    // A number is shown as written (cut): "-1", "4294967296".
    const std::string found = got == Kind::U64 ? std::string(number.substr(0, 32)) : std::string(describe(got));
    wrong_type = "\"" + where + "\" must be " + describe(node->kind) + ", found " + found;
    wrong_type_at = stream->Tell();
    return true;
  }
  bool open_level(Kind kind) {
    const auto [node, where] = expected();
    if (node != nullptr && node->kind != kind) {
      if (wrong_type.empty()) {
        wrong_type = "\"" + where + "\" must be " + describe(node->kind) + ", found " + describe(kind);
        wrong_type_at = stream->Tell() == 0 ? 0 : stream->Tell() - 1;
      }
      levels.push_back({nullptr, where, {}, 0});  // its contents are not checked
      return true;
    }
    levels.push_back({node, where, {}, 0});
    return true;
  }

  bool StartObject() {
    open.emplace_back();
    return open_level(Kind::Object);
  }
  bool EndObject(rapidjson::SizeType) {
    open.pop_back();
    levels.pop_back();
    return true;
  }
  bool StartArray() { return open_level(Kind::Array); }
  bool EndArray(rapidjson::SizeType) {
    levels.pop_back();
    return true;
  }
  bool Key(const char* s, rapidjson::SizeType n, bool) {
    std::vector<std::string>& keys = open.back();
    const std::string k(s, n);
    for (const std::string& seen : keys) {
      if (seen == k) {
        duplicate = k;
        duplicate_end = stream->Tell();
        return false;
      }
    }
    keys.push_back(k);
    levels.back().key = k;
    return true;
  }
  bool RawNumber(const char* s, rapidjson::SizeType n, bool) {
    for (rapidjson::SizeType i = 0; i < n; ++i) {
      if (s[i] == '.' || s[i] == 'e' || s[i] == 'E') {
        non_integer.assign(s, n < 32 ? n : 32);
        non_integer_at = stream->Tell();  // numbers are read as a copy: the stream still points at its start
        return false;
      }
    }
    return check(Kind::U64, std::string_view(s, n));
  }
  bool String(const char*, rapidjson::SizeType, bool) { return check(Kind::String); }
  bool Bool(bool) { return check(Kind::Bool); }
  bool Null() { return check(Kind::Null); }
  bool Default() { return true; }
};

}  // namespace

ReplayStatus check_json_syntax(std::string_view text, std::string_view name) {
  const std::string copy(text);  // rapidjson reads a NUL-terminated buffer
  rapidjson::StringStream ss(copy.c_str());
  DuplicateKeys handler;
  handler.stream = &ss;
  rapidjson::Reader reader;
  const rapidjson::ParseResult r = reader.Parse<rapidjson::kParseStopWhenDoneFlag | rapidjson::kParseNumbersAsStringsFlag>(ss, handler);
  // Every refusal names the byte offset and its line:column.
  const auto refuse = [&](std::size_t at, const std::string& what) {
    const LineColumn lc = line_column(text, at);
    return fail(ErrorCode::Corrupt, name, at,
                "JSON line " + std::to_string(lc.line) + ":" + std::to_string(lc.column) + ": " + what);
  };
  if (!r.IsError()) {
    // Only whitespace may follow the document.
    std::size_t i = ss.Tell();
    while (i < text.size() && (text[i] == ' ' || text[i] == '\t' || text[i] == '\r' || text[i] == '\n')) ++i;
    if (i != text.size()) return refuse(i, "unexpected text after the end of the document");
    if (!handler.wrong_type.empty()) return refuse(handler.wrong_type_at, handler.wrong_type);
    return ReplayStatus::Ok();
  }
  if (!handler.duplicate.empty()) return refuse(handler.duplicate_end, "duplicate key \"" + handler.duplicate + "\"");
  if (!handler.non_integer.empty())
    return refuse(handler.non_integer_at,
                  "number " + handler.non_integer + " is not an integer (a replay holds integers only)");
  return refuse(r.Offset(), rapidjson::GetParseError_En(r.Code()));
}

}  // namespace lockstep::replay::replay_detail
