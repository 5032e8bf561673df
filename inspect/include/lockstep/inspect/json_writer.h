#pragma once
// JsonWriter: a small builder of one-line JSON reports (the tool's --json answers, and the same
// reports in a game's own tool or log): objects, arrays, string/integer/bool/double fields.
// Strings are quoted with append_json_string (dump.h), the project's one JSON quoting. Doubles
// are written with "%.6g" (display figures only; never a simulated value).
//
//   inspect::JsonWriter j;
//   j.begin().field("ok", true).field("ticks", std::uint64_t{600}).end();
//   j.str();  // {"ok":true,"ticks":600}
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace lockstep::inspect {

class JsonWriter {
 public:
  JsonWriter& begin(std::string_view key = {});  // object (key empty: top level or array element)
  JsonWriter& end();
  JsonWriter& begin_array(std::string_view key);
  JsonWriter& end_array();
  JsonWriter& field(std::string_view key, std::string_view v);
  JsonWriter& field(std::string_view key, const char* v) { return field(key, std::string_view(v)); }
  JsonWriter& field(std::string_view key, const std::string& v) { return field(key, std::string_view(v)); }
  JsonWriter& field(std::string_view key, std::uint64_t v);
  JsonWriter& field(std::string_view key, std::int64_t v);
  JsonWriter& field(std::string_view key, std::uint32_t v) { return field(key, std::uint64_t{v}); }
  JsonWriter& field(std::string_view key, int v) { return field(key, std::int64_t{v}); }
  JsonWriter& field(std::string_view key, double v);
  JsonWriter& field(std::string_view key, bool v);
  JsonWriter& value(std::string_view v);  // array element (a string)
  const std::string& str() const noexcept { return out_; }

 private:
  void key(std::string_view k);
  std::string out_;
  std::vector<bool> first_{true};
};

// The body of a JSON string (append_json_string without its surrounding quotes).
std::string json_escape(std::string_view s);

}  // namespace lockstep::inspect
