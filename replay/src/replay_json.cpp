// Replay files, JSON form (cereal JSON archive): docs/replay-format.md, "JSON form".
// Every field is required (start a hand-made fixture from `lockstep convert X.replay X.json`).
// Byte data (input frames, snapshots) is lowercase hex of the canonical bytes; 64-bit hashes
// are 16 hex digits.
#include <lockstep/replay/replay_file.h>

#include "replay_io.h"

#include <cereal/archives/json.hpp>
#include <cereal/types/string.hpp>
#include <cereal/types/vector.hpp>

#include <exception>
#include <sstream>

namespace lockstep::replay {

using namespace replay_detail;

namespace {

struct JsonConfig {
  std::uint32_t players = 0;
  std::uint32_t units = 0;
  std::uint64_t seed = 0;
  std::vector<std::uint32_t> params;
  template <class A>
  void serialize(A& ar) {
    ar(CEREAL_NVP(players), CEREAL_NVP(units), CEREAL_NVP(seed), CEREAL_NVP(params));
  }
};

struct JsonHash {
  std::uint64_t tick = 0;
  std::string total, entities, archetypes, resources;
  std::vector<std::string> components;
  template <class A>
  void serialize(A& ar) {
    ar(CEREAL_NVP(tick), CEREAL_NVP(total), CEREAL_NVP(entities), CEREAL_NVP(archetypes), CEREAL_NVP(resources),
       CEREAL_NVP(components));
  }
};

struct JsonCheckpoint {
  std::uint64_t tick = 0;
  std::string snapshot;
  template <class A>
  void serialize(A& ar) {
    ar(CEREAL_NVP(tick), CEREAL_NVP(snapshot));
  }
};

struct JsonReplay {
  std::uint32_t format_version = kReplayFormatVersion;
  std::string sim;
  std::uint32_t sim_version = 0;
  std::string input_schema;
  std::uint32_t input_size = 0;
  JsonConfig config;
  std::uint32_t block_ticks = 0;
  bool hashes = false;
  bool component_hashes = false;
  std::uint32_t checkpoint_interval = 0;
  std::vector<std::string> components;
  bool complete = false;
  std::vector<std::string> frames;  // one per tick: players' inputs as hex, space separated
  std::vector<JsonHash> tick_hashes;
  std::vector<JsonCheckpoint> checkpoints;
  template <class A>
  void serialize(A& ar) {
    ar(CEREAL_NVP(format_version), CEREAL_NVP(sim), CEREAL_NVP(sim_version), CEREAL_NVP(input_schema),
       CEREAL_NVP(input_size), CEREAL_NVP(config), CEREAL_NVP(block_ticks), CEREAL_NVP(hashes),
       CEREAL_NVP(component_hashes), CEREAL_NVP(checkpoint_interval), CEREAL_NVP(components), CEREAL_NVP(complete),
       CEREAL_NVP(frames), CEREAL_NVP(tick_hashes), CEREAL_NVP(checkpoints));
  }
};

constexpr char kHex[] = "0123456789abcdef";

std::string hex_bytes(const std::byte* p, std::size_t n) {
  std::string s(n * 2, '0');
  for (std::size_t i = 0; i < n; ++i) {
    const auto b = std::to_integer<unsigned>(p[i]);
    s[2 * i] = kHex[b >> 4];
    s[2 * i + 1] = kHex[b & 15u];
  }
  return s;
}

int hex_digit(char c) noexcept {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

bool parse_hex_bytes(std::string_view s, std::vector<std::byte>& out) {
  if (s.size() % 2 != 0) return false;
  for (std::size_t i = 0; i < s.size(); i += 2) {
    const int hi = hex_digit(s[i]), lo = hex_digit(s[i + 1]);
    if (hi < 0 || lo < 0) return false;
    out.push_back(static_cast<std::byte>(hi * 16 + lo));
  }
  return true;
}

bool parse_hex64(std::string_view s, std::uint64_t& v) {
  if (s.size() != 16) return false;
  v = 0;
  for (char c : s) {
    const int d = hex_digit(c);
    if (d < 0) return false;
    v = (v << 4) | static_cast<std::uint64_t>(d);
  }
  return true;
}

// rapidjson's DOM parser recurses per nesting level: refuse deep documents before parsing.
bool nesting_ok(std::string_view text, int max_depth) noexcept {
  int depth = 0;
  bool in_string = false, escape = false;
  for (char c : text) {
    if (in_string) {
      if (escape) escape = false;
      else if (c == '\\') escape = true;
      else if (c == '"') in_string = false;
      continue;
    }
    if (c == '"') in_string = true;
    else if (c == '{' || c == '[') {
      if (++depth > max_depth) return false;
    } else if (c == '}' || c == ']') {
      --depth;
    }
  }
  return true;
}

}  // namespace

ReplayStatus encode_replay_json(const Replay& r, std::string& out) {
  ReplayStatus st = validate_header(r.header, "<encode>", 0);
  if (!st.ok()) return st;
  const ReplayHeader& h = r.header;
  JsonReplay j;
  j.sim = h.sim_name;
  j.sim_version = h.sim_version;
  j.input_schema = to_hex(h.input_schema);
  j.input_size = h.input_size;
  j.config = {h.config.players, h.config.units, h.config.seed,
              std::vector<std::uint32_t>(std::begin(h.config.params), std::end(h.config.params))};
  j.block_ticks = h.block_ticks;
  j.hashes = h.has_hashes();
  j.component_hashes = h.has_component_hashes();
  j.checkpoint_interval = h.checkpoint_interval;
  j.components = h.components;
  j.complete = r.complete;
  const std::uint64_t frames = r.frame_count();
  j.frames.reserve(frames);
  for (std::uint64_t t = 0; t < frames; ++t) {
    const auto f = r.frame(t);
    std::string s;
    for (std::uint32_t p = 0; p < h.config.players; ++p) {
      if (p != 0) s += ' ';
      s += hex_bytes(f.data() + std::size_t{p} * h.input_size, h.input_size);
    }
    j.frames.push_back(std::move(s));
  }
  for (std::size_t i = 0; i < r.hashes.size(); ++i) {
    const TickHash& th = r.hashes[i];
    JsonHash jh{th.tick, to_hex(th.total), to_hex(th.entities), to_hex(th.archetypes), to_hex(th.resources), {}};
    for (std::uint64_t c : r.components_at(i)) jh.components.push_back(to_hex(c));
    j.tick_hashes.push_back(std::move(jh));
  }
  for (const Checkpoint& cp : r.checkpoints) j.checkpoints.push_back({cp.tick, hex_bytes(cp.snapshot.data(), cp.snapshot.size())});
  try {
    std::ostringstream os;
    {
      cereal::JSONOutputArchive ar(os, cereal::JSONOutputArchive::Options::Default());
      ar(cereal::make_nvp("lockstep_replay", j));
    }
    out = os.str();
    out += '\n';
  } catch (const std::exception& e) {
    return fail(ErrorCode::Internal, "<encode>", 0, std::string("JSON serialisation failed: ") + e.what());
  }
  return ReplayStatus::Ok();
}

ReplayStatus decode_replay_json(std::string_view text, Replay& out, std::string_view name) {
  out = Replay{};
  // A UTF-8 byte order mark is read as three spaces: byte offsets and columns in messages
  // stay those of the file.
  std::string without_bom;
  if (text.size() >= 3 && text.substr(0, 3) == "\xEF\xBB\xBF") {
    without_bom = "   ";
    without_bom.append(text.substr(3));
    text = without_bom;
  }
  if (text.size() > (512u << 20)) return fail(ErrorCode::Corrupt, name, 0, "JSON replay larger than 512 MiB");
  if (!nesting_ok(text, 16)) return fail(ErrorCode::Corrupt, name, 0, "JSON nested deeper than 16 levels");
  if (ReplayStatus syntax = check_json_syntax(text, name); !syntax.ok()) return syntax;
  JsonReplay j;
  try {
    std::istringstream is{std::string(text)};
    cereal::JSONInputArchive ar(is);
    ar(cereal::make_nvp("lockstep_replay", j));
  } catch (const std::exception& e) {
    return fail(ErrorCode::Corrupt, name, 0, std::string("not a valid JSON replay: ") + e.what());
  }
  auto bad = [&](const std::string& what) { return fail(ErrorCode::Corrupt, name, 0, "JSON replay: " + what); };
  if (j.format_version != kReplayFormatVersion)
    return fail(ErrorCode::Mismatch, name, 0,
                "JSON replay format version " + std::to_string(j.format_version) + "; this build reads version 1");
  ReplayHeader& h = out.header;
  h.sim_name = j.sim;
  h.sim_version = j.sim_version;
  if (!parse_hex64(j.input_schema, h.input_schema)) return bad("input_schema must be 16 hex digits");
  h.input_size = j.input_size;
  if (j.config.params.size() != 4) return bad("config.params must have 4 entries");
  h.config.players = j.config.players;
  h.config.units = j.config.units;
  h.config.seed = j.config.seed;
  for (int i = 0; i < 4; ++i) h.config.params[i] = j.config.params[static_cast<std::size_t>(i)];
  h.block_ticks = j.block_ticks;
  h.flags = (j.hashes ? kReplayHasHashes : 0u) | (j.component_hashes ? kReplayHasComponentHashes : 0u) |
            (j.checkpoint_interval != 0 ? kReplayHasCheckpoints : 0u);
  h.checkpoint_interval = j.checkpoint_interval;
  h.components = j.components;
  ReplayStatus st = validate_header(h, name, 0);
  if (!st.ok()) return st;

  const std::size_t fb = h.frame_bytes();
  out.inputs.reserve(j.frames.size() * fb);
  for (std::size_t t = 0; t < j.frames.size(); ++t) {
    const std::string& s = j.frames[t];
    const std::size_t at = out.inputs.size();
    std::string_view rest = s;
    for (std::uint32_t p = 0; p < h.config.players; ++p) {
      if (p != 0) {
        if (rest.empty() || rest.front() != ' ') return bad("frame " + std::to_string(t) + ": players must be separated by one space");
        rest.remove_prefix(1);
      }
      const std::size_t n = std::min<std::size_t>(rest.size(), std::size_t{h.input_size} * 2);
      if (n != std::size_t{h.input_size} * 2 || !parse_hex_bytes(rest.substr(0, n), out.inputs))
        return bad("frame " + std::to_string(t) + ": player " + std::to_string(p) + " needs " +
                   std::to_string(h.input_size * 2) + " hex digits");
      rest.remove_prefix(n);
    }
    if (!rest.empty() || out.inputs.size() != at + fb) return bad("frame " + std::to_string(t) + ": trailing characters");
  }
  const std::uint64_t frames = j.frames.size();
  if (!h.has_hashes() && !j.tick_hashes.empty()) return bad("tick_hashes given but hashes is false");
  if (j.tick_hashes.size() > frames + 1) return bad("more tick_hashes than ticks");
  const std::size_t nc = h.has_component_hashes() ? h.components.size() : 0;
  for (std::size_t i = 0; i < j.tick_hashes.size(); ++i) {
    const JsonHash& jh = j.tick_hashes[i];
    TickHash th;
    th.tick = jh.tick;
    if (jh.tick != i) return bad("tick_hashes[" + std::to_string(i) + "].tick must be " + std::to_string(i));
    if (!parse_hex64(jh.total, th.total) || !parse_hex64(jh.entities, th.entities) ||
        !parse_hex64(jh.archetypes, th.archetypes) || !parse_hex64(jh.resources, th.resources))
      return bad("tick_hashes[" + std::to_string(i) + "]: hashes must be 16 hex digits");
    if (jh.components.size() != nc)
      return bad("tick_hashes[" + std::to_string(i) + "]: needs " + std::to_string(nc) + " component hashes");
    out.hashes.push_back(th);
    for (const std::string& c : jh.components) {
      std::uint64_t v = 0;
      if (!parse_hex64(c, v)) return bad("tick_hashes[" + std::to_string(i) + "]: component hash must be 16 hex digits");
      out.component_hashes.push_back(v);
    }
  }
  for (const JsonCheckpoint& jc : j.checkpoints) {
    if ((h.flags & kReplayHasCheckpoints) == 0) return bad("checkpoints given but checkpoint_interval is 0");
    if (jc.tick > frames || (!out.checkpoints.empty() && jc.tick <= out.checkpoints.back().tick))
      return bad("checkpoint ticks must ascend and not exceed the frame count");
    Checkpoint cp;
    cp.tick = jc.tick;
    if (!parse_hex_bytes(jc.snapshot, cp.snapshot)) return bad("checkpoint snapshot must be hex");
    out.checkpoints.push_back(std::move(cp));
  }
  out.complete = j.complete;
  if (!out.complete)
    out.warnings.push_back(where(name, 0, true, frames) + "JSON replay marked incomplete (complete: false)");
  return ReplayStatus::Ok();
}

}  // namespace lockstep::replay
