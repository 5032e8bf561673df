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

// SAX handler: one key list per open object; a repeated key stops the parse.
struct DuplicateKeys : rapidjson::BaseReaderHandler<rapidjson::UTF8<>, DuplicateKeys> {
  const rapidjson::StringStream* stream = nullptr;
  std::vector<std::vector<std::string>> open;
  std::string duplicate;
  std::size_t duplicate_end = 0;  // offset just after the repeated key
  std::string non_integer;
  std::size_t non_integer_at = 0;  // offset of the number's first byte

  bool StartObject() {
    open.emplace_back();
    return true;
  }
  bool EndObject(rapidjson::SizeType) {
    open.pop_back();
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
    return true;
  }
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
    if (i == text.size()) return ReplayStatus::Ok();
    return refuse(i, "unexpected text after the end of the document");
  }
  if (!handler.duplicate.empty()) return refuse(handler.duplicate_end, "duplicate key \"" + handler.duplicate + "\"");
  if (!handler.non_integer.empty())
    return refuse(handler.non_integer_at,
                  "number " + handler.non_integer + " is not an integer (a replay holds integers only)");
  return refuse(r.Offset(), rapidjson::GetParseError_En(r.Code()));
}

}  // namespace lockstep::replay::replay_detail
