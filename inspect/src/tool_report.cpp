// The reports of run, record, trace, snapshot and synctest (tool_report.h). Floats: display only.
#include <lockstep/hash/snapshot_file.h>
#include <lockstep/inspect/json_writer.h>
#include <lockstep/inspect/tool_report.h>
#include <lockstep/replay/runner.h>
#include <lockstep/store/snapshot.h>

#include <algorithm>
#include <cstdarg>
#include <cstdio>

namespace lockstep::inspect {

namespace {
constexpr int kExitMismatch = 1;  // the tool's exit code for a mismatch, echoed in the JSON

// printf into a string (the reports' number formats are the tool's printf formats).
std::string format(const char* fmt, ...) {
  char buf[512];
  va_list args;
  va_start(args, fmt);
  const int n = std::vsnprintf(buf, sizeof buf, fmt, args);
  va_end(args);
  if (n < 0) return {};
  if (static_cast<std::size_t>(n) < sizeof buf) return std::string(buf, static_cast<std::size_t>(n));
  std::string big(static_cast<std::size_t>(n) + 1, '\0');
  va_start(args, fmt);
  std::vsnprintf(big.data(), big.size(), fmt, args);
  va_end(args);
  big.pop_back();
  return big;
}

using ull = unsigned long long;

std::string line(JsonWriter& j) { return j.str() + "\n"; }
}  // namespace

std::string terminal_safe(std::string_view message) {
  constexpr std::size_t kMaxShown = 4096;
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  const std::size_t n = std::min(message.size(), kMaxShown);
  for (std::size_t i = 0; i < n; ++i) {
    const auto c = static_cast<unsigned char>(message[i]);
    if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7f) {
      out += "\\x";
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 15]);
    } else {
      out.push_back(static_cast<char>(c));
    }
  }
  if (message.size() > n) out += "...(" + std::to_string(message.size() - n) + " more bytes)";
  return out;
}

std::string run_report(const std::string& name, const replay::Replay& r, const StateHash& h, std::uint64_t checked,
                       std::uint32_t entities, double seconds, const Percentiles& p, bool json) {
  const std::uint64_t ticks = r.frame_count();
  const double tps = seconds > 0 ? static_cast<double>(ticks) / seconds : 0.0;
  const replay::ReplayHeader& hd = r.header;
  if (json) {
    JsonWriter j;
    j.begin().field("ok", true).field("replay", name).field("sim", hd.sim_name).field("players", hd.config.players)
        .field("units", hd.config.units).field("ticks", ticks).field("final_tick", h.tick).field("final_hash", to_hex(h.total))
        .field("hashes_checked", checked).field("ticks_per_second", tps).field("tick_p50_us", p.p50_us)
        .field("tick_p99_us", p.p99_us).field("tick_max_us", p.max_us).field("entities", std::uint64_t{entities}).end();
    return line(j);
  }
  std::string s = "replay      " + name + "\n";
  s += format("sim         %s v%u  players %u  units %u  seed %llu\n", hd.sim_name.c_str(), hd.sim_version, hd.config.players,
              hd.config.units, static_cast<ull>(hd.config.seed));
  s += format("ticks       %llu\n", static_cast<ull>(ticks));
  s += format("final hash  %s (tick %llu)\n", to_hex(h.total).c_str(), static_cast<ull>(h.tick));
  if (r.hashes.empty())
    s += "recorded    no hashes in this replay (nothing checked)\n";
  else
    s += format("recorded    %llu/%llu tick hashes match\n", static_cast<ull>(checked), static_cast<ull>(r.hashes.size()));
  s += format("entities    %u\n", entities);
  s += format("speed       %.0f ticks/s\n", tps);
  s += format("tick time   p50 %.1f us  p99 %.1f us  max %.1f us\n", p.p50_us, p.p99_us, p.max_us);
  return s;
}

std::string run_desync_report(const std::string& name, const std::string& divergence, bool json) {
  if (!json) return "";
  JsonWriter j;
  j.begin().field("ok", false).field("exit", kExitMismatch).field("replay", name).field("divergence", divergence).end();
  return line(j);
}

std::string record_report(const std::string& out, const std::string& sim, const replay::SimConfig& config, std::uint64_t bot,
                          std::uint64_t ticks, const StateHash& h, double seconds, bool json) {
  if (json) {
    JsonWriter j;
    j.begin().field("ok", true).field("output", out).field("sim", sim).field("players", config.players)
        .field("units", config.units).field("seed", config.seed).field("bot", bot).field("ticks", ticks)
        .field("final_hash", to_hex(h.total)).field("seconds", seconds).end();
    return line(j);
  }
  return format("recorded %llu ticks of %s (players %u, units %u, seed %llu, bot %llu) to %s\n", static_cast<ull>(ticks),
                sim.c_str(), config.players, config.units, static_cast<ull>(config.seed), static_cast<ull>(bot), out.c_str()) +
         format("final hash %s (tick %llu), %.2f s\n", to_hex(h.total).c_str(), static_cast<ull>(h.tick), seconds);
}

std::string trace_report(const std::string& name, const std::string& out, std::uint64_t lines, bool json) {
  if (json) {
    JsonWriter j;
    j.begin().field("ok", true).field("replay", name).field("output", out).field("lines", lines).end();
    return line(j);
  }
  if (out == "-") return "";
  return format("wrote %llu trace lines (ticks 0..%llu) to %s\n", static_cast<ull>(lines),
                static_cast<ull>(lines == 0 ? 0 : lines - 1), out.c_str());
}

std::string snapshot_written_report(const std::string& name, std::uint64_t tick, const std::string& out, const StateHash& at,
                                    bool json) {
  if (json) {
    JsonWriter j;
    j.begin().field("ok", true).field("replay", name).field("tick", tick).field("output", out).field("hash", to_hex(at.total)).end();
    return line(j);
  }
  return format("wrote the state at tick %llu (hash %s) to %s\n", static_cast<ull>(tick), to_hex(at.total).c_str(), out.c_str());
}

SnapshotCheck check_snapshot_file(const replay::Sim& sim, const replay::SimConfig& config, const std::string& name,
                                  const std::string& path, const StateHash& expected, const StorageView& schema) {
  SnapshotCheck c;
  replay::Runner fresh(sim, config);
  if (!fresh.status().ok()) {
    c.error = name + ": cannot build the sim: " + fresh.status().message();
    return c;
  }
  Snapshot scratch;
  scratch.reserve(fresh.world());
  if (const FileStatus st = load_snapshot_file(path, fresh.world(), scratch); !st.ok()) {
    c.error = st.message;
    return c;
  }
  c.loaded = hash_world(fresh.world());
  c.same = diff_hashes(c.loaded, expected).empty();
  if (!c.same) c.parts = describe_hash_diff(c.loaded, expected, schema);
  return c;
}

SnapshotCheckReport snapshot_check_report(const std::string& path, const std::string& name, std::uint64_t tick,
                                          const SnapshotCheck& c, const StateHash& expected, bool json) {
  SnapshotCheckReport out;
  if (json) {
    JsonWriter j;
    j.begin().field("ok", c.same).field("exit", c.same ? 0 : kExitMismatch).field("replay", name).field("tick", tick)
        .field("snapshot", path).field("hash", to_hex(c.loaded.total)).field("expected", to_hex(expected.total));
    if (!c.same) j.field("differs", c.parts);
    j.end();
    out.report = line(j);
  } else if (c.same) {
    out.report = format("OK %s: identical to tick %llu of %s (hash %s)\n", path.c_str(), static_cast<ull>(tick), name.c_str(),
                        to_hex(expected.total).c_str());
  }
  if (!c.same)
    out.log = format("MISMATCH %s vs tick %llu of %s: differs: %s\n", path.c_str(), static_cast<ull>(tick),
                     name.c_str(), c.parts.c_str());
  return out;
}

std::string synctest_ok_report(const std::string& name, std::uint32_t distance, std::uint64_t ticks, std::uint64_t rollbacks,
                               std::uint64_t resimulated_ticks, double seconds, bool json) {
  if (json) {
    JsonWriter j;
    j.begin().field("ok", true).field("source", name).field("check_distance", distance).field("ticks", ticks)
        .field("rollbacks", rollbacks).field("resimulated_ticks", resimulated_ticks).field("seconds", seconds).end();
    return line(j);
  }
  return format("OK synctest %s: %llu ticks, check distance %u: %llu rollbacks, %llu resimulated ticks, every hash "
                "reproduced (%.2f s)\n",
                name.c_str(), static_cast<ull>(ticks), distance, static_cast<ull>(rollbacks),
                static_cast<ull>(resimulated_ticks), seconds);
}

}  // namespace lockstep::inspect
