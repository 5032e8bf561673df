// TimingTrace (timing_trace.h): slice recorder and Chrome trace-event writer.
#include <lockstep/inspect/dump.h>
#include <lockstep/inspect/timing_trace.h>

#include <algorithm>
#include <cstdio>

namespace lockstep::inspect {

Percentiles percentiles(std::vector<std::uint64_t> ns) {
  Percentiles p;
  if (ns.empty()) return p;
  std::sort(ns.begin(), ns.end());
  const std::size_t n = ns.size();
  auto at = [&](std::size_t q) { return static_cast<double>(ns[std::min(n - 1, n * q / 100)]) / 1000.0; };
  p.p50_us = at(50);
  p.p99_us = at(99);
  p.max_us = static_cast<double>(ns.back()) / 1000.0;
  double sum = 0;
  for (std::uint64_t v : ns) sum += static_cast<double>(v);
  p.mean_us = sum / static_cast<double>(n) / 1000.0;
  return p;
}

namespace {
std::string json_escape(std::string_view s) {
  std::string out;
  append_json_string(out, s);
  return out.substr(1, out.size() - 2);
}
}  // namespace

class TimingTrace::Lane final : public replay::TickProbe {
 public:
  Lane(TimingTrace& trace, std::uint32_t id, std::string name) : trace_(trace), id_(id), name_(std::move(name)) {}
  void begin(replay::Slice kind, const char* name, std::uint64_t tick) noexcept override {
    // Deeper nesting than any runner/session produces is not recorded (but kept balanced).
    if (depth_ < kMaxDepth) open_[depth_] = Open{kind, name, tick, trace_.now_ns()};
    ++depth_;
  }
  void end(replay::Slice) noexcept override {
    if (depth_ == 0) return;
    --depth_;
    if (depth_ >= kMaxDepth) return;
    const Open& o = open_[depth_];
    Event e;
    e.name = o.name;
    e.kind = o.kind;
    e.lane = id_;
    e.depth = depth_;
    e.tick = o.tick;
    e.start_ns = o.start;
    e.dur_ns = trace_.now_ns() - o.start;
    // Growth beyond the reserve allocates (run/netsim); bench reserves everything up front.
    try {
      trace_.add(e);
    } catch (...) {
      ++trace_dropped_;
    }
  }
  std::uint32_t id() const noexcept { return id_; }
  const std::string& name() const noexcept { return name_; }
  std::uint64_t dropped() const noexcept { return trace_dropped_; }

 private:
  struct Open {
    replay::Slice kind;
    const char* name;
    std::uint64_t tick;
    std::uint64_t start;
  };
  static constexpr std::uint32_t kMaxDepth = 16;
  TimingTrace& trace_;
  std::uint32_t id_;
  std::string name_;
  Open open_[kMaxDepth] = {};
  std::uint32_t depth_ = 0;
  std::uint64_t trace_dropped_ = 0;
};

TimingTrace::TimingTrace(std::string process_name, std::size_t reserve)
    : process_(std::move(process_name)), origin_(std::chrono::steady_clock::now()) {
  events_.reserve(reserve);
}
TimingTrace::~TimingTrace() = default;

replay::TickProbe& TimingTrace::lane(std::uint32_t id, const std::string& name) {
  for (auto& l : lanes_)
    if (l->id() == id) return *l;
  lanes_.push_back(std::make_unique<Lane>(*this, id, name));
  return *lanes_.back();
}

std::vector<TimingTrace::NameStats> TimingTrace::stats() const {
  struct Group {
    const char* name;
    replay::Slice kind;
    std::vector<std::uint64_t> ns;
  };
  std::vector<Group> groups;
  for (const Event& e : events_) {
    auto it = std::find_if(groups.begin(), groups.end(), [&](const Group& g) {
      return g.kind == e.kind && std::string_view(g.name) == std::string_view(e.name);
    });
    if (it == groups.end()) {
      groups.push_back(Group{e.name, e.kind, {}});
      it = groups.end() - 1;
    }
    it->ns.push_back(e.dur_ns);
  }
  std::vector<NameStats> out;
  for (Group& g : groups) {
    NameStats s;
    s.name = g.name;
    s.kind = g.kind;
    s.count = g.ns.size();
    std::uint64_t total = 0;
    for (std::uint64_t v : g.ns) total += v;
    s.total_ms = static_cast<double>(total) / 1e6;
    const Percentiles p = percentiles(std::move(g.ns));
    s.p50_us = p.p50_us;
    s.p99_us = p.p99_us;
    s.max_us = p.max_us;
    out.push_back(std::move(s));
  }
  return out;
}

namespace {
// Nanoseconds as microseconds with three decimals, without floating point.
void append_us(std::string& out, std::uint64_t ns) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%llu.%03llu", static_cast<unsigned long long>(ns / 1000),
                static_cast<unsigned long long>(ns % 1000));
  out += buf;
}
}  // namespace

std::string TimingTrace::chrome_json() const {
  std::string out;
  out.reserve(events_.size() * 120 + 512);
  out += "{\"traceEvents\":[\n";
  out += "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":1,\"tid\":0,\"args\":{\"name\":\"" + json_escape(process_) + "\"}}";
  for (const auto& l : lanes_) {
    out += ",\n{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":1,\"tid\":" + std::to_string(l->id()) +
           ",\"args\":{\"name\":\"" + json_escape(l->name()) + "\"}}";
    out += ",\n{\"name\":\"thread_sort_index\",\"ph\":\"M\",\"pid\":1,\"tid\":" + std::to_string(l->id()) +
           ",\"args\":{\"sort_index\":" + std::to_string(l->id()) + "}}";
  }
  for (const Event& e : events_) {
    out += ",\n{\"name\":\"";
    out += json_escape(e.name);
    out += "\",\"cat\":\"";
    out += replay::to_string(e.kind);
    out += "\",\"ph\":\"X\",\"ts\":";
    append_us(out, e.start_ns);
    out += ",\"dur\":";
    append_us(out, e.dur_ns);
    out += ",\"pid\":1,\"tid\":";
    out += std::to_string(e.lane);
    out += ",\"args\":{\"tick\":";
    out += std::to_string(e.tick);
    out += "}}";
  }
  std::uint64_t dropped = 0;
  for (const auto& l : lanes_) dropped += l->dropped();
  out += "\n],\"displayTimeUnit\":\"ns\",\"otherData\":{\"tool\":\"lockstep\",\"events\":" +
         std::to_string(events_.size()) + ",\"dropped\":" + std::to_string(dropped) + "}}\n";
  return out;
}

}  // namespace lockstep::inspect
