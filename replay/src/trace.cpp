// Trace text format (replay/trace.h, docs/replay-format.md).
#include <lockstep/hash/bounded_read.h>
#include <lockstep/replay/trace.h>

#include "replay_io.h"

#include <cstdio>

namespace lockstep::replay {

using replay_detail::fail;

namespace {

void put_hex(std::string& out, std::uint64_t v) {
  char buf[16];
  format_hex(v, buf);
  out.append(buf, 16);
}

void put_part(std::string& out, std::string_view name, std::uint64_t v) {
  out += ' ';
  out += name;
  out += '=';
  put_hex(out, v);
}

bool parse_hex64(std::string_view s, std::uint64_t& v) {
  if (s.size() != 16) return false;
  v = 0;
  for (char c : s) {
    int d = -1;
    if (c >= '0' && c <= '9') d = c - '0';
    else if (c >= 'a' && c <= 'f') d = c - 'a' + 10;
    else if (c >= 'A' && c <= 'F') d = c - 'A' + 10;
    if (d < 0) return false;
    v = (v << 4) | static_cast<std::uint64_t>(d);
  }
  return true;
}

bool parse_u64(std::string_view s, std::uint64_t& v) {
  if (s.empty() || s.size() > 20) return false;
  v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    const std::uint64_t d = static_cast<std::uint64_t>(c - '0');
    if (v > (~std::uint64_t{0} - d) / 10) return false;
    v = v * 10 + d;
  }
  return true;
}

}  // namespace

std::string trace_comment(const ReplayHeader& h) {
  std::string s = "# lockstep trace v1 sim=" + h.sim_name + " version=" + std::to_string(h.sim_version) +
                  " players=" + std::to_string(h.config.players) + " units=" + std::to_string(h.config.units) +
                  " seed=" + std::to_string(h.config.seed) + "\n";
  return s;
}

void append_trace_line(std::string& out, const StateHash& h, const StorageView& schema, bool components) {
  out += std::to_string(h.tick);
  out += ' ';
  put_hex(out, h.total);
  if (components) {
    put_part(out, "entities", h.entities);
    put_part(out, "archetypes", h.archetypes);
    put_part(out, "resources", h.resources);
    for (std::uint32_t c = 0; c < h.component_count && c < schema.component_count(); ++c)
      put_part(out, schema.component(c).name, h.components[c]);
  }
  out += '\n';
}

void append_trace_line(std::string& out, const Replay& r, std::uint64_t tick, bool components) {
  const TickHash& th = r.hashes[tick];
  out += std::to_string(th.tick);
  out += ' ';
  put_hex(out, th.total);
  if (components) {
    put_part(out, "entities", th.entities);
    put_part(out, "archetypes", th.archetypes);
    put_part(out, "resources", th.resources);
    const auto comps = r.components_at(tick);
    for (std::size_t c = 0; c < comps.size(); ++c) put_part(out, r.header.components[c], comps[c]);
  }
  out += '\n';
}

ReplayStatus parse_trace(std::string_view text, Trace& out, std::string_view name) {
  out = Trace{};
  if (text.size() > kMaxTraceBytes) return fail(ErrorCode::Corrupt, name, 0, "trace larger than 1 GiB");
  std::size_t pos = 0;
  std::uint64_t line_no = 0;
  while (pos < text.size()) {
    const std::size_t eol = text.find('\n', pos);
    const std::size_t end = eol == std::string_view::npos ? text.size() : eol;
    std::string_view line = text.substr(pos, end - pos);
    const std::uint64_t line_at = pos;
    pos = end + 1;
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty()) continue;
    if (line.front() == '#') {
      out.comments.emplace_back(line);
      continue;
    }
    auto bad = [&](const std::string& what) {
      return fail(ErrorCode::Corrupt, name, line_at, "line " + std::to_string(line_no) + ": " + what);
    };
    TraceLine tl;
    tl.line_number = line_no;
    std::size_t field = 0;
    std::size_t i = 0;
    while (i < line.size()) {
      while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
      if (i >= line.size()) break;
      std::size_t j = i;
      while (j < line.size() && line[j] != ' ' && line[j] != '\t') ++j;
      const std::string_view tok = line.substr(i, j - i);
      i = j;
      if (field == 0) {
        if (!parse_u64(tok, tl.tick)) return bad("expected a tick number, found '" + std::string(tok.substr(0, 32)) + "'");
      } else if (field == 1) {
        if (!parse_hex64(tok, tl.total)) return bad("expected a 16-digit hex total hash");
      } else {
        const std::size_t eq = tok.find('=');
        std::uint64_t v = 0;
        if (eq == std::string_view::npos || eq == 0 || eq > 255 || !parse_hex64(tok.substr(eq + 1), v))
          return bad("expected name=<16 hex digits>, found '" + std::string(tok.substr(0, 64)) + "'");
        if (tl.parts.size() >= 512) return bad("more than 512 parts on one line");
        tl.parts.emplace_back(std::string(tok.substr(0, eq)), v);
      }
      ++field;
    }
    if (field < 2) return bad("expected '<tick> <total hash>'");
    const std::uint64_t expect = out.lines.size();
    if (tl.tick != expect) return bad("tick " + std::to_string(tl.tick) + " where tick " + std::to_string(expect) + " was expected");
    out.lines.push_back(std::move(tl));
  }
  return ReplayStatus::Ok();
}

ReplayStatus read_trace_file(const std::string& path, Trace& out) {
  hash::ReadLimits limits;
  limits.max_file_bytes = kMaxTraceBytes;
  limits.max_stream_bytes = kMaxTraceBytes;
  limits.sniff_bytes = 4096;
  // A trace is text: a NUL byte in its first 4 KiB means a binary file or a device.
  const auto sniff = [](std::span<const std::byte> head) -> std::string {
    for (std::size_t i = 0; i < head.size(); ++i)
      if (head[i] == std::byte{0}) return "not a text trace (NUL byte at offset " + std::to_string(i) + ")";
    return {};
  };
  std::vector<std::byte> bytes;
  hash::ReadFailure failure;
  if (!hash::read_file_bounded(path, limits, sniff, bytes, failure)) return fail(failure.code, path, failure.offset, failure.what);
  const std::string text(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  bytes = {};
  ReplayStatus st = parse_trace(text, out, path);
  // Every trace `lockstep trace` writes has tick 0; an empty one is a failed or truncated write.
  if (st.ok() && out.lines.empty())
    return fail(ErrorCode::Corrupt, path, text.size(), "no trace lines (a trace has one line per tick, from tick 0)");
  return st;
}

std::vector<std::string> diff_trace_line(const TraceLine& golden, const StateHash& h, const StorageView& schema) {
  std::vector<std::string> diffs;
  if (golden.tick != h.tick) diffs.emplace_back("tick");
  if (golden.total != h.total) diffs.emplace_back("total");
  for (const auto& [name, value] : golden.parts) {
    std::uint64_t mine = 0;
    bool found = true;
    if (name == "entities") mine = h.entities;
    else if (name == "archetypes") mine = h.archetypes;
    else if (name == "resources") mine = h.resources;
    else {
      found = false;
      for (std::uint32_t c = 0; c < h.component_count && c < schema.component_count(); ++c) {
        if (name == schema.component(c).name) {
          mine = h.components[c];
          found = true;
          break;
        }
      }
    }
    if (!found || mine != value) diffs.push_back(found ? name : name + " (not in this build)");
  }
  return diffs;
}

}  // namespace lockstep::replay
