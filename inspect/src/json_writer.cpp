// JsonWriter (json_writer.h). Doubles: display figures only.
#include <lockstep/inspect/dump.h>
#include <lockstep/inspect/json_writer.h>

#include <cstdio>

namespace lockstep::inspect {

std::string json_escape(std::string_view s) {
  std::string o;
  o.reserve(s.size() + 2);
  append_json_string(o, s);
  return o.substr(1, o.size() - 2);
}

void JsonWriter::key(std::string_view k) {
  if (!first_.back()) out_ += ',';
  first_.back() = false;
  if (!k.empty()) {
    out_ += '"';
    out_ += json_escape(k);
    out_ += "\":";
  }
}
JsonWriter& JsonWriter::begin(std::string_view k) {
  key(k);
  out_ += '{';
  first_.push_back(true);
  return *this;
}
JsonWriter& JsonWriter::end() {
  out_ += '}';
  first_.pop_back();
  return *this;
}
JsonWriter& JsonWriter::begin_array(std::string_view k) {
  key(k);
  out_ += '[';
  first_.push_back(true);
  return *this;
}
JsonWriter& JsonWriter::end_array() {
  out_ += ']';
  first_.pop_back();
  return *this;
}
JsonWriter& JsonWriter::field(std::string_view k, std::string_view v) {
  key(k);
  out_ += '"';
  out_ += json_escape(v);
  out_ += '"';
  return *this;
}
JsonWriter& JsonWriter::field(std::string_view k, std::uint64_t v) {
  key(k);
  out_ += std::to_string(v);
  return *this;
}
JsonWriter& JsonWriter::field(std::string_view k, std::int64_t v) {
  key(k);
  out_ += std::to_string(v);
  return *this;
}
JsonWriter& JsonWriter::field(std::string_view k, double v) {
  key(k);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  out_ += buf;
  return *this;
}
JsonWriter& JsonWriter::field(std::string_view k, bool v) {
  key(k);
  out_ += v ? "true" : "false";
  return *this;
}
JsonWriter& JsonWriter::value(std::string_view v) {
  key({});
  out_ += '"';
  out_ += json_escape(v);
  out_ += '"';
  return *this;
}

}  // namespace lockstep::inspect
