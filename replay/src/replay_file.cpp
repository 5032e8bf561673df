// Replay files, binary form v1 (docs/replay-format.md).
#include <lockstep/hash/snapshot_file.h>
#include <lockstep/hash/bounded_read.h>
#include <lockstep/hash/byte_stream.h>
#include <lockstep/hash/durable_file.h>
#include <lockstep/hash/world_snapshot.h>
#include <lockstep/store/world.h>
#include <lockstep/replay/replay_file.h>

#include "replay_io.h"

#include <cereal/archives/portable_binary.hpp>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <exception>
#include <istream>
#include <optional>
#include <ostream>
#include <streambuf>

namespace lockstep::replay {

using namespace replay_detail;

void Replay::add_hash(const StateHash& h) {
  hashes.push_back({h.tick, h.total, h.entities, h.archetypes, h.resources});
  if (header.has_component_hashes()) {
    for (std::size_t c = 0; c < header.components.size(); ++c)
      component_hashes.push_back(c < h.component_count ? h.components[c] : 0);
  }
}

ReplayHeader make_header(const Sim& sim, const SimConfig& config, const StorageView& schema, std::uint32_t flags,
                         std::uint32_t block_ticks, std::uint32_t checkpoint_interval) {
  ReplayHeader h;
  h.sim_name = std::string(sim.name());
  h.sim_version = sim.version();
  h.input_schema = input_schema_hash(sim.input_type());
  h.input_size = sim.input_type().size;
  h.config = config;
  h.block_ticks = block_ticks;
  if ((flags & kReplayHasComponentHashes) != 0) flags |= kReplayHasHashes;
  flags &= ~static_cast<std::uint32_t>(kReplayHasCheckpoints);
  if (checkpoint_interval != 0) flags |= kReplayHasCheckpoints;
  h.flags = flags;
  h.checkpoint_interval = checkpoint_interval;
  if ((flags & kReplayHasComponentHashes) != 0)
    for (std::uint32_t c = 0; c < schema.component_count(); ++c) h.components.emplace_back(schema.component(c).name);
  return h;
}

namespace {

// ---- byte sinks / sources ---------------------------------------------------------------


using OutArchive = cereal::PortableBinaryOutputArchive;
using InArchive = cereal::PortableBinaryInputArchive;

void put_le32(std::vector<std::byte>& out, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<std::byte>((v >> (8 * i)) & 0xFFu));
}
void put_le64(std::vector<std::byte>& out, std::uint64_t v) {
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<std::byte>((v >> (8 * i)) & 0xFFu));
}

// Writes one block: frame header, a cereal LE body produced by `body`, checksum.
template <class BodyFn>
void append_block(std::vector<std::byte>& out, std::uint32_t kind, std::uint64_t first_tick, BodyFn&& body) {
  std::vector<std::byte> b;
  {
    hash::ByteVectorSink sink(b);
    std::ostream os(&sink);
    OutArchive ar(os, OutArchive::Options::LittleEndian());
    body(ar);
  }
  const std::size_t start = out.size();
  put_le32(out, kind);
  put_le32(out, static_cast<std::uint32_t>(b.size()));
  put_le64(out, first_tick);
  out.insert(out.end(), b.begin(), b.end());
  const std::uint64_t sum = xxh3_64(std::span<const std::byte>(out.data() + start, out.size() - start));
  put_le64(out, sum);
}

void put_raw(OutArchive& ar, const void* p, std::size_t n) {
  if (n != 0) ar(cereal::binary_data(static_cast<const std::uint8_t*>(p), n));
}
void put_str(OutArchive& ar, const std::string& s) {
  ar(static_cast<std::uint32_t>(s.size()));
  put_raw(ar, s.data(), s.size());
}

}  // namespace

namespace replay_detail {

void append_preamble(std::vector<std::byte>& out) {
  const auto* m = reinterpret_cast<const std::byte*>(kReplayMagic);
  out.insert(out.end(), m, m + 8);
  put_le32(out, kReplayFormatVersion);
  put_le32(out, 0);
}

void append_head(std::vector<std::byte>& out, const ReplayHeader& h) {
  append_block(out, kKindHead, 0, [&](OutArchive& ar) {
    put_str(ar, h.sim_name);
    ar(h.sim_version, h.input_schema, h.input_size);
    ar(h.config.players, h.config.units, h.config.seed);
    for (std::uint32_t p : h.config.params) ar(p);
    ar(h.block_ticks, h.flags, h.checkpoint_interval);
    ar(static_cast<std::uint32_t>(h.components.size()));
    for (const std::string& c : h.components) put_str(ar, c);
  });
}

void append_inputs(std::vector<std::byte>& out, std::uint64_t first_tick, std::uint32_t frame_bytes,
                   std::span<const std::byte> frames) {
  const auto count = static_cast<std::uint32_t>(frame_bytes == 0 ? 0 : frames.size() / frame_bytes);
  append_block(out, kKindInputs, first_tick, [&](OutArchive& ar) {
    ar(count, frame_bytes);
    put_raw(ar, frames.data(), frames.size());
  });
}

void append_hashes(std::vector<std::byte>& out, std::span<const TickHash> hashes,
                   std::span<const std::uint64_t> components, std::uint32_t component_count) {
  append_block(out, kKindHashes, hashes.front().tick, [&](OutArchive& ar) {
    ar(static_cast<std::uint32_t>(hashes.size()), component_count);
    for (std::size_t i = 0; i < hashes.size(); ++i) {
      const TickHash& h = hashes[i];
      ar(h.total, h.entities, h.archetypes, h.resources);
      for (std::uint32_t c = 0; c < component_count; ++c) ar(components[i * component_count + c]);
    }
  });
}

void append_checkpoint(std::vector<std::byte>& out, const Checkpoint& cp) {
  append_block(out, kKindCheckpoint, cp.tick, [&](OutArchive& ar) {
    ar(static_cast<std::uint32_t>(cp.snapshot.size()));
    put_raw(ar, cp.snapshot.data(), cp.snapshot.size());
  });
}

void append_end(std::vector<std::byte>& out, std::uint64_t frames, std::uint64_t hash_count, std::uint64_t final_total) {
  append_block(out, kKindEnd, frames, [&](OutArchive& ar) { ar(frames, hash_count, final_total); });
}

std::string where(std::string_view file, std::uint64_t offset, bool has_tick, std::uint64_t tick) {
  std::string s(file);
  s += ": byte ";
  s += std::to_string(offset);
  if (has_tick) {
    s += " (tick ";
    s += std::to_string(tick);
    s += ")";
  }
  s += ": ";
  return s;
}

ReplayStatus fail(ErrorCode code, std::string_view file, std::uint64_t offset, const std::string& what) {
  ReplayStatus st;
  st.code = code;
  st.offset = offset;
  st.message = where(file, offset, false, 0) + what;
  return st;
}
ReplayStatus fail_tick(ErrorCode code, std::string_view file, std::uint64_t offset, std::uint64_t tick,
                       const std::string& what) {
  ReplayStatus st;
  st.code = code;
  st.offset = offset;
  st.tick = tick;
  st.has_tick = true;
  st.message = where(file, offset, true, tick) + what;
  return st;
}

std::string kind_name(std::uint32_t kind) {
  std::string s;
  for (int i = 0; i < 4; ++i) {
    const char c = static_cast<char>((kind >> (8 * i)) & 0xFFu);
    s += (c >= 0x20 && c < 0x7F) ? c : '?';
  }
  return s;
}

std::string printable_name(std::string_view text, std::size_t max_bytes) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  const std::size_t n = std::min(text.size(), max_bytes);
  for (std::size_t i = 0; i < n; ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c == '\\') {
      out += "\\\\";
    } else if (c >= 0x20 && c < 0x7f) {
      out.push_back(static_cast<char>(c));
    } else {
      out += "\\x";
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 15]);
    }
  }
  if (text.size() > n) out += "...(" + std::to_string(text.size() - n) + " more bytes)";
  return out;
}

ReplayStatus validate_header(const ReplayHeader& h, std::string_view file, std::uint64_t offset) {
  auto bad = [&](const std::string& what) { return fail(ErrorCode::Corrupt, file, offset, "header: " + what); };
  if (h.sim_name.empty() || h.sim_name.size() > kMaxSimName) return bad("sim name must be 1..64 bytes");
  if (h.config.players == 0 || h.config.players > kMaxPlayers)
    return bad("player count " + std::to_string(h.config.players) + " outside 1..64");
  if (h.input_size == 0 || h.input_size > kMaxInputSize)
    return bad("input size " + std::to_string(h.input_size) + " outside 1..4096");
  if (h.block_ticks == 0 || h.block_ticks > kMaxBlockTicks)
    return bad("block_ticks " + std::to_string(h.block_ticks) + " outside 1..4096");
  if ((h.flags & ~std::uint32_t{7}) != 0) return bad("unknown flag bits " + std::to_string(h.flags));
  if (h.has_component_hashes() && !h.has_hashes()) return bad("component hashes without hashes");
  if (((h.flags & kReplayHasCheckpoints) != 0) != (h.checkpoint_interval != 0))
    return bad("checkpoint flag and checkpoint interval disagree");
  if (!h.has_component_hashes() && !h.components.empty()) return bad("component names without component hashes");
  if (h.components.size() > StateHash::kMaxComponents) return bad("more than 256 components");
  for (const std::string& c : h.components)
    if (c.empty() || c.size() > kMaxTypeName) return bad("component name must be 1..255 bytes");
  return ReplayStatus::Ok();
}

}  // namespace replay_detail

// ---- encoding ----------------------------------------------------------------------------

namespace {

// Writes the INPT/HASH pair of frames [s, e) and the checkpoints s < T <= e (T = 0 with the
// first pair's predecessor, see encode_replay).
void append_pair(std::vector<std::byte>& out, const Replay& r, std::uint64_t s, std::uint64_t e) {
  const std::size_t fb = r.header.frame_bytes();
  append_inputs(out, s, r.header.frame_bytes(),
                std::span<const std::byte>(r.inputs.data() + s * fb, static_cast<std::size_t>((e - s) * fb)));
  if (r.header.has_hashes() && !r.hashes.empty()) {
    const std::uint64_t lo = s == 0 ? 0 : s + 1;
    const std::uint64_t hi = std::min<std::uint64_t>(e, r.hashes.size() - 1);
    if (lo <= hi) {
      const auto nc = static_cast<std::uint32_t>(r.header.has_component_hashes() ? r.header.components.size() : 0);
      std::span<const std::uint64_t> comps;
      if (nc != 0) comps = std::span<const std::uint64_t>(r.component_hashes.data() + lo * nc, (hi - lo + 1) * nc);
      append_hashes(out, std::span<const TickHash>(r.hashes.data() + lo, hi - lo + 1), comps, nc);
    }
  }
}

}  // namespace

ReplayStatus encode_replay(const Replay& r, std::vector<std::byte>& out) {
  out.clear();
  ReplayStatus st = validate_header(r.header, "<encode>", 0);
  if (!st.ok()) return st;
  const std::uint64_t frames = r.frame_count();
  if (r.inputs.size() != frames * r.header.frame_bytes())
    return fail(ErrorCode::InvalidArgument, "<encode>", 0, "input bytes are not a whole number of frames");
  if (r.hashes.size() > frames + 1) return fail(ErrorCode::InvalidArgument, "<encode>", 0, "more hashes than ticks");
  for (std::size_t i = 0; i < r.hashes.size(); ++i)
    if (r.hashes[i].tick != i) return fail(ErrorCode::InvalidArgument, "<encode>", 0, "hash ticks are not 0, 1, 2, ...");
  const std::size_t nc = r.header.has_component_hashes() ? r.header.components.size() : 0;
  if (r.component_hashes.size() != r.hashes.size() * nc)
    return fail(ErrorCode::InvalidArgument, "<encode>", 0, "component hash count does not match");
  try {
    append_preamble(out);
    append_head(out, r.header);
    std::size_t cp = 0;
    auto checkpoints_upto = [&](std::uint64_t tick) {
      while (cp < r.checkpoints.size() && r.checkpoints[cp].tick <= tick) append_checkpoint(out, r.checkpoints[cp++]);
    };
    checkpoints_upto(0);
    const std::uint64_t bt = r.header.block_ticks;
    for (std::uint64_t s = 0; s < frames; s += bt) {
      const std::uint64_t e = std::min(frames, s + bt);
      append_pair(out, r, s, e);
      checkpoints_upto(e);
    }
    if (frames == 0 && r.header.has_hashes() && !r.hashes.empty()) {
      const auto ncu = static_cast<std::uint32_t>(nc);
      append_hashes(out, std::span<const TickHash>(r.hashes.data(), 1),
                    std::span<const std::uint64_t>(r.component_hashes.data(), nc), ncu);
    }
    checkpoints_upto(~std::uint64_t{0});
    if (r.complete) append_end(out, frames, r.hashes.size(), r.hashes.empty() ? 0 : r.hashes.back().total);
  } catch (const std::exception& e) {
    return fail(ErrorCode::Internal, "<encode>", out.size(), std::string("serialisation failed: ") + e.what());
  }
  return ReplayStatus::Ok();
}

// ---- decoding ----------------------------------------------------------------------------

namespace {

constexpr std::uint32_t kEndBodyBytes = 1 + 3 * 8;  // cereal endianness flag + frames, hashes, final total

std::uint32_t get_le32(const std::byte* p) {
  std::uint32_t v = 0;
  for (int i = 0; i < 4; ++i) v |= std::uint32_t{std::to_integer<std::uint8_t>(p[i])} << (8 * i);
  return v;
}
std::uint64_t get_le64(const std::byte* p) {
  std::uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v |= std::uint64_t{std::to_integer<std::uint8_t>(p[i])} << (8 * i);
  return v;
}

// Bounded reader over one block body (a cereal portable archive). Every read is checked
// against the remaining body bytes before cereal touches it.
class Body {
 public:
  Body(std::span<const std::byte> body) : src_(body.data(), body.size()), is_(&src_) {}

  // Consumes and checks cereal's endianness byte (1 = little-endian), then opens the archive.
  bool open() {
    if (src_.remaining() < 1) return false;
    std::uint8_t flag = 0;
    const auto got = src_.sgetn(reinterpret_cast<char*>(&flag), 1);
    if (got != 1 || flag != 1) return false;
    // Put the byte back for cereal, which reads it itself.
    src_.pubseekoff(-1, std::ios_base::cur, std::ios_base::in);
    ar_.emplace(is_);
    return true;
  }
  std::uint64_t pos() const noexcept { return src_.pos(); }
  std::uint64_t remaining() const noexcept { return src_.remaining(); }
  template <class T>
  bool num(T& v) {
    if (src_.remaining() < sizeof(T)) return false;
    (*ar_)(v);
    return true;
  }
  bool raw(void* dst, std::uint64_t n) {
    if (src_.remaining() < n) return false;
    if (n != 0) (*ar_)(cereal::binary_data(static_cast<std::uint8_t*>(dst), static_cast<std::size_t>(n)));
    return true;
  }
  bool str(std::string& s, std::uint32_t max) {
    std::uint32_t n = 0;
    if (!num(n) || n > max || n > src_.remaining()) return false;
    s.resize(n);
    if (!raw(s.data(), n)) return false;
    return s.find('\0') == std::string::npos;
  }

 private:
  hash::ByteSpanSource src_;
  std::istream is_;
  std::optional<InArchive> ar_;
};

struct Decoder {
  std::span<const std::byte> bytes;
  std::string_view name;
  DecodeOptions options;
  Replay& out;

  std::uint64_t block_at = 0;
  std::uint64_t block_tick = 0;
  std::uint32_t block_kind = 0;
  // Where parsing stands: the next block's offset (after the preamble), whether HEAD was
  // read, and why the last block is incomplete (a file that ends mid-block).
  std::uint64_t pos = 0;
  bool have_head = false;
  std::string truncation{};

  ReplayStatus corrupt(const std::string& what) const {
    return fail_tick(ErrorCode::Corrupt, name, block_at, block_tick, kind_name(block_kind) + " block: " + what);
  }

  ReplayStatus parse_head(Body& b) {
    ReplayHeader& h = out.header;
    std::uint32_t ncomp = 0;
    bool good = b.str(h.sim_name, kMaxSimName) && b.num(h.sim_version) && b.num(h.input_schema) &&
                b.num(h.input_size) && b.num(h.config.players) && b.num(h.config.units) && b.num(h.config.seed);
    for (std::uint32_t& p : h.config.params) good = good && b.num(p);
    good = good && b.num(h.block_ticks) && b.num(h.flags) && b.num(h.checkpoint_interval) && b.num(ncomp);
    if (!good) return fail(ErrorCode::Corrupt, name, block_at, "HEAD block: malformed header body");
    if (ncomp > StateHash::kMaxComponents)
      return fail(ErrorCode::Corrupt, name, block_at, "HEAD block: " + std::to_string(ncomp) + " components (max 256)");
    h.components.resize(ncomp);
    for (std::string& c : h.components)
      if (!b.str(c, kMaxTypeName)) return fail(ErrorCode::Corrupt, name, block_at, "HEAD block: malformed component name");
    if (b.remaining() != 0) return fail(ErrorCode::Corrupt, name, block_at, "HEAD block: trailing bytes in body");
    return validate_header(h, name, block_at);
  }

  ReplayStatus parse_inputs(Body& b) {
    std::uint32_t count = 0, fb = 0;
    if (!b.num(count) || !b.num(fb)) return corrupt("malformed body");
    if (fb != out.header.frame_bytes())
      return corrupt("frame size " + std::to_string(fb) + " differs from the header's " +
                     std::to_string(out.header.frame_bytes()));
    if (count == 0 || count > out.header.block_ticks)
      return corrupt("frame count " + std::to_string(count) + " outside 1..block_ticks");
    const std::uint64_t frames = out.frame_count();
    if (block_tick != frames)
      return corrupt("input frames are not contiguous: expected first tick " + std::to_string(frames));
    const std::uint64_t n = std::uint64_t{count} * fb;
    if (b.remaining() != n) return corrupt("body holds " + std::to_string(b.remaining()) + " frame bytes, expected " + std::to_string(n));
    const std::size_t at = out.inputs.size();
    out.inputs.resize(at + static_cast<std::size_t>(n));
    if (!b.raw(out.inputs.data() + at, n)) return corrupt("malformed frames");
    return ReplayStatus::Ok();
  }

  ReplayStatus parse_hashes(Body& b) {
    if (!out.header.has_hashes()) return corrupt("hash block in a replay recorded without hashes");
    std::uint32_t count = 0, nc = 0;
    if (!b.num(count) || !b.num(nc)) return corrupt("malformed body");
    const std::uint32_t want_nc =
        out.header.has_component_hashes() ? static_cast<std::uint32_t>(out.header.components.size()) : 0;
    if (nc != want_nc)
      return corrupt(std::to_string(nc) + " component hashes per tick, header says " + std::to_string(want_nc));
    if (count == 0 || count > out.header.block_ticks + 1) return corrupt("hash count " + std::to_string(count) + " out of range");
    if (block_tick != out.hashes.size())
      return corrupt("hashes are not contiguous: expected first tick " + std::to_string(out.hashes.size()));
    if (out.hashes.size() + count > out.frame_count() + 1)
      return corrupt("hashes run past the recorded input frames (tick " + std::to_string(out.frame_count()) + ")");
    const std::uint64_t per = 32 + 8ull * nc;
    if (b.remaining() != per * count) return corrupt("body size does not match its hash count");
    for (std::uint32_t i = 0; i < count; ++i) {
      TickHash h;
      h.tick = block_tick + i;
      if (!b.num(h.total) || !b.num(h.entities) || !b.num(h.archetypes) || !b.num(h.resources))
        return corrupt("malformed hash entry");
      out.hashes.push_back(h);
      for (std::uint32_t c = 0; c < nc; ++c) {
        std::uint64_t v = 0;
        if (!b.num(v)) return corrupt("malformed component hash");
        out.component_hashes.push_back(v);
      }
    }
    return ReplayStatus::Ok();
  }

  ReplayStatus parse_checkpoint(Body& b) {
    if ((out.header.flags & kReplayHasCheckpoints) == 0) return corrupt("checkpoint in a replay recorded without checkpoints");
    std::uint32_t n = 0;
    if (!b.num(n) || b.remaining() != n) return corrupt("snapshot length does not match the body");
    if (block_tick > out.frame_count()) return corrupt("checkpoint beyond the recorded input frames");
    if (!out.checkpoints.empty() && block_tick <= out.checkpoints.back().tick) return corrupt("checkpoint ticks are not ascending");
    Checkpoint cp;
    cp.tick = block_tick;
    cp.snapshot.resize(n);
    if (!b.raw(cp.snapshot.data(), n)) return corrupt("malformed snapshot");
    out.checkpoints.push_back(std::move(cp));
    return ReplayStatus::Ok();
  }

  ReplayStatus parse_end(Body& b) {
    std::uint64_t frames = 0, hash_count = 0, final_total = 0;
    if (!b.num(frames) || !b.num(hash_count) || !b.num(final_total) || b.remaining() != 0) return corrupt("malformed body");
    if (frames != out.frame_count() || block_tick != frames)
      return corrupt("END says " + std::to_string(frames) + " frames, the file holds " + std::to_string(out.frame_count()));
    if (hash_count != out.hashes.size())
      return corrupt("END says " + std::to_string(hash_count) + " hashes, the file holds " + std::to_string(out.hashes.size()));
    if (final_total != (out.hashes.empty() ? 0 : out.hashes.back().total)) return corrupt("END's final hash differs from the last HASH entry");
    out.complete = true;
    return ReplayStatus::Ok();
  }

  // True when the file's last bytes, at or after `from`, are a whole END block with a valid
  // checksum. A truncated recording cannot end that way except by a 2^-64 coincidence.
  bool ends_with_end_block(std::uint64_t from) const {
    constexpr std::uint64_t kEndBody = kEndBodyBytes;
    constexpr std::uint64_t kEndBlock = kBlockFrameBytes + kEndBody + kChecksumBytes;
    const std::uint64_t size = bytes.size();
    if (size < from + kEndBlock) return false;
    const std::uint64_t at = size - kEndBlock;
    if (get_le32(bytes.data() + at) != kKindEnd || get_le32(bytes.data() + at + 4) != kEndBody) return false;
    return get_le64(bytes.data() + at + kBlockFrameBytes + kEndBody) ==
           xxh3_64(bytes.subspan(static_cast<std::size_t>(at), static_cast<std::size_t>(kBlockFrameBytes + kEndBody)));
  }

  ReplayStatus run() {
    out = Replay{};
    pos = 0;
    have_head = false;
    truncation.clear();
    ReplayStatus st = preamble(true);
    if (st.ok()) st = parse_blocks(true);
    if (st.ok()) st = finish();
    return st;
  }

  // The 16-byte preamble. Streaming (`final` false): fewer bytes than that is "wait for more"
  // as long as what is there agrees with the magic.
  ReplayStatus preamble(bool final) {
    const std::uint64_t size = bytes.size();
    if (size < kPreambleBytes) {
      if (!final && std::memcmp(bytes.data(), kReplayMagic, std::min<std::size_t>(size, 8)) == 0) return ReplayStatus::Ok();
      if (size >= 1 && std::memcmp(bytes.data(), kReplayMagic, std::min<std::size_t>(size, 8)) != 0)
        return fail(ErrorCode::Corrupt, name, 0, "not a lockstep replay (bad magic)");
      return fail(ErrorCode::Corrupt, name, size, "truncated: " + std::to_string(size) + " bytes, shorter than the 16-byte preamble");
    }
    if (std::memcmp(bytes.data(), kReplayMagic, 8) != 0)
      return fail(ErrorCode::Corrupt, name, 0, "not a lockstep replay (bad magic)");
    const std::uint32_t version = get_le32(bytes.data() + 8);
    if (version != kReplayFormatVersion)
      return fail(ErrorCode::Mismatch, name, 8,
                  "replay format version " + std::to_string(version) + "; this build reads version " +
                      std::to_string(kReplayFormatVersion));
    if (get_le32(bytes.data() + 12) != 0) return fail(ErrorCode::Corrupt, name, 12, "reserved preamble field is not 0");
    pos = kPreambleBytes;
    return ReplayStatus::Ok();
  }

  // Every complete block from `pos` on. A block that is not complete yet ends the pass: the
  // end of a truncated file when `final`, else a stream that has not delivered it yet.
  ReplayStatus parse_blocks(bool final) {
    if (pos == 0) return ReplayStatus::Ok();  // preamble still incomplete (streaming)
    const std::uint64_t size = bytes.size();
    truncation.clear();
    while (pos < size) {
      block_at = pos;
      block_kind = 0;
      block_tick = 0;
      const std::uint64_t left = size - pos;
      if (left < kBlockFrameBytes) {
        if (!final) break;
        if (!have_head) return fail(ErrorCode::Corrupt, name, pos, "truncated inside the HEAD block");
        truncation = "file ends inside a block header at byte " + std::to_string(pos);
        break;
      }
      block_kind = get_le32(bytes.data() + pos);
      const std::uint32_t len = get_le32(bytes.data() + pos + 4);
      block_tick = get_le64(bytes.data() + pos + 8);
      const bool known = block_kind == kKindHead || block_kind == kKindInputs || block_kind == kKindHashes ||
                         block_kind == kKindCheckpoint || block_kind == kKindEnd;
      if (!known) {
        if (!have_head) return fail(ErrorCode::Corrupt, name, pos, "expected the HEAD block, found kind '" + kind_name(block_kind) + "'");
        return corrupt("unknown block kind");
      }
      if (!have_head && block_kind != kKindHead)
        return fail(ErrorCode::Corrupt, name, pos, "expected the HEAD block, found '" + kind_name(block_kind) + "'");
      if (have_head && block_kind == kKindHead) return corrupt("a second HEAD block");
      if (len > kMaxBlockBody) return corrupt("body length " + std::to_string(len) + " exceeds the 64 MiB maximum");
      if (block_kind == kKindEnd && len != kEndBodyBytes)
        return corrupt("body length " + std::to_string(len) + ", an END body is always " + std::to_string(kEndBodyBytes) + " bytes");
      const std::uint64_t total = kBlockFrameBytes + std::uint64_t{len} + kChecksumBytes;
      if (total > left) {
        if (!final) break;
        if (!have_head) return fail(ErrorCode::Corrupt, name, pos, "truncated inside the HEAD block");
        // An interrupted recording ends mid-block; a file that still ends with an intact END
        // block was complete, so the length field itself is damaged (one flipped bit).
        if (ends_with_end_block(pos + kBlockFrameBytes))
          return corrupt("body length " + std::to_string(len) + " runs " + std::to_string(total - left) +
                         " bytes past the end of the file, which ends with an intact END block: the length field is damaged");
        truncation = "file ends inside a " + kind_name(block_kind) + " block (tick " + std::to_string(block_tick) +
                     ") at byte " + std::to_string(pos) + ": " + std::to_string(left) + " of " + std::to_string(total) +
                     " bytes present";
        break;
      }
      const std::uint64_t want = get_le64(bytes.data() + pos + kBlockFrameBytes + len);
      if (options.verify_checksums) {
        const std::uint64_t got = xxh3_64(bytes.subspan(pos, kBlockFrameBytes + len));
        if (got != want) {
          if (!have_head) return fail(ErrorCode::Corrupt, name, pos, "HEAD block checksum mismatch");
          return corrupt("checksum mismatch");
        }
      }
      Body body(bytes.subspan(pos + kBlockFrameBytes, len));
      if (!body.open()) {
        if (!have_head) return fail(ErrorCode::Corrupt, name, pos, "HEAD block: body is not a little-endian cereal archive");
        return corrupt("body is not a little-endian cereal archive");
      }
      ReplayStatus st;
      try {
        switch (block_kind) {
          case kKindHead: st = parse_head(body); have_head = true; break;
          case kKindInputs: st = parse_inputs(body); break;
          case kKindHashes: st = parse_hashes(body); break;
          case kKindCheckpoint: st = parse_checkpoint(body); break;
          default: st = parse_end(body); break;
        }
      } catch (const std::exception& e) {
        st = corrupt(std::string("malformed body: ") + e.what());
      }
      if (!st.ok()) return st;
      pos += total;
      if (out.complete && pos != size) {
        block_at = pos;
        return fail(ErrorCode::Corrupt, name, pos, std::to_string(size - pos) + " bytes after the END block");
      }
    }
    return ReplayStatus::Ok();
  }

  ReplayStatus finish() {
    if (!have_head) return fail(ErrorCode::Corrupt, name, pos, "no HEAD block");
    if (!out.complete) {
      std::string w = where(name, pos, true, out.frame_count());
      if (!truncation.empty()) {
        w += truncation + "; ";
      }
      w += "no END block (recording was interrupted); loaded " + std::to_string(out.frame_count()) +
           " ticks up to the last complete block";
      out.warnings.push_back(std::move(w));
    }
    return ReplayStatus::Ok();
  }
};

}  // namespace

// ---- streams ------------------------------------------------------------------------------

struct ReplayStreamDecoder::State {
  std::string name;
  std::vector<std::byte> bytes;
  Replay replay;
  std::optional<Decoder> decoder;
  bool failed = false;
  ReplayStatus error;
};

ReplayStreamDecoder::ReplayStreamDecoder(std::string name) : state_(std::make_unique<State>()) {
  state_->name = std::move(name);
}
ReplayStreamDecoder::~ReplayStreamDecoder() = default;

ReplayStatus ReplayStreamDecoder::feed(std::span<const std::byte> more) {
  State& s = *state_;
  if (s.failed) return s.error;
  if (s.replay.complete && !more.empty()) {
    s.failed = true;
    s.error = fail(ErrorCode::Corrupt, s.name, s.bytes.size(), "bytes after the END block");
    return s.error;
  }
  if (std::uint64_t{s.bytes.size()} + more.size() > kMaxReplayFileBytes) {  // 64-bit: size_t is 32 bits on wasm32
    s.failed = true;
    s.error = fail(ErrorCode::Corrupt, s.name, s.bytes.size(), "the stream exceeds the 4 GiB maximum of a replay");
    return s.error;
  }
  s.bytes.insert(s.bytes.end(), more.begin(), more.end());
  if (!s.decoder) s.decoder.emplace(Decoder{s.bytes, s.name, DecodeOptions{}, s.replay});
  Decoder& d = *s.decoder;
  d.bytes = s.bytes;  // the vector may have moved
  ReplayStatus st = d.pos == 0 ? d.preamble(false) : ReplayStatus::Ok();
  if (st.ok()) st = d.parse_blocks(false);
  if (!st.ok()) {
    s.failed = true;
    s.error = st;
  }
  return st;
}

const Replay& ReplayStreamDecoder::replay() const noexcept { return state_->replay; }
bool ReplayStreamDecoder::has_header() const noexcept { return state_->decoder && state_->decoder->have_head; }
bool ReplayStreamDecoder::complete() const noexcept { return state_->replay.complete; }
std::uint64_t ReplayStreamDecoder::bytes_received() const noexcept { return state_->bytes.size(); }
std::uint64_t ReplayStreamDecoder::bytes_parsed() const noexcept {
  return state_->decoder ? state_->decoder->pos : 0;
}

ReplayStatus decode_replay(std::span<const std::byte> bytes, Replay& out, std::string_view name, DecodeOptions options) {
  Decoder d{bytes, name, options, out};
  ReplayStatus st = d.run();
  if (!st.ok()) out = Replay{};
  return st;
}

ReplayStatus check_replay_sim(const Replay& r, const Sim& sim, std::string_view name) {
  const ReplayHeader& h = r.header;
  if (h.sim_name != sim.name())
    return fail(ErrorCode::Mismatch, name, 0,
                "recorded with sim '" + replay_detail::printable_name(h.sim_name) + "', not '" + std::string(sim.name()) + "'");
  if (h.sim_version != sim.version())
    return fail(ErrorCode::Mismatch, name, 0,
                "recorded with " + h.sim_name + " version " + std::to_string(h.sim_version) + "; this build has version " +
                    std::to_string(sim.version()));
  const std::uint64_t schema = input_schema_hash(sim.input_type());
  if (h.input_schema != schema || h.input_size != sim.input_type().size)
    return fail(ErrorCode::Mismatch, name, 0,
                "input schema " + to_hex(h.input_schema) + " (" + std::to_string(h.input_size) + " bytes) differs from this build's " +
                    to_hex(schema) + " (" + std::to_string(sim.input_type().size) + " bytes)");
  return ReplayStatus::Ok();
}

// ---- files -------------------------------------------------------------------------------

bool looks_like_json(std::span<const std::byte> bytes) noexcept {
  // Editors on Windows save UTF-8 with a byte order mark; it is not part of the JSON.
  if (bytes.size() >= 3 && std::to_integer<unsigned char>(bytes[0]) == 0xEF &&
      std::to_integer<unsigned char>(bytes[1]) == 0xBB && std::to_integer<unsigned char>(bytes[2]) == 0xBF)
    bytes = bytes.subspan(3);
  for (std::byte b : bytes) {
    const auto c = std::to_integer<unsigned char>(b);
    if (c == ' ' || c == '\t' || c == '\r' || c == '\n') continue;
    return c == '{';
  }
  return false;
}

ReplayStatus read_replay_file(const std::string& path, Replay& out) {
  out = Replay{};
  hash::ReadLimits limits;
  limits.max_file_bytes = kMaxReplayFileBytes;
  limits.max_stream_bytes = kMaxStreamedReplayBytes;
  limits.sniff_bytes = kPreambleBytes;
  // Binary replays start with the magic, JSON ones with '{' after optional whitespace.
  const auto sniff = [](std::span<const std::byte> head) -> std::string {
    std::size_t i = 0;
    if (head.size() >= 3 && std::to_integer<unsigned char>(head[0]) == 0xEF &&
        std::to_integer<unsigned char>(head[1]) == 0xBB && std::to_integer<unsigned char>(head[2]) == 0xBF)
      i = 3;  // a UTF-8 byte order mark before JSON
    while (i < head.size()) {
      const auto c = std::to_integer<unsigned char>(head[i]);
      if (c != ' ' && c != '\t' && c != '\r' && c != '\n') break;
      ++i;
    }
    if (i < head.size() && std::to_integer<unsigned char>(head[i]) == '{') return {};
    if (i == head.size() && i != 0) return {};  // whitespace only so far: the JSON reader decides
    if (head.empty()) return {};                 // empty: the decoder reports the truncation
    if (std::memcmp(head.data(), kReplayMagic, std::min<std::size_t>(head.size(), 8)) != 0)
      return "not a lockstep replay (bad magic)";
    return {};
  };
  std::vector<std::byte> bytes;
  hash::ReadFailure failure;
  if (!hash::read_file_bounded(path, limits, sniff, bytes, failure)) return fail(failure.code, path, failure.offset, failure.what);
  if (looks_like_json(bytes))
    return decode_replay_json(std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()), out, path);
  return decode_replay(bytes, out, path);
}

namespace {
ReplayStatus write_all(const std::string& path, std::span<const std::byte> bytes) {
  hash::WriteFailure failure;
  if (!hash::write_file_atomically(path, bytes.data(), bytes.size(), failure))
    return fail(ErrorCode::IoError, failure.failed_path, failure.written, failure.what);
  return ReplayStatus::Ok();
}
}  // namespace

ReplayStatus write_replay_file(const std::string& path, const Replay& replay, bool json) {
  if (json) {
    std::string text;
    ReplayStatus st = encode_replay_json(replay, text);
    if (!st.ok()) return st;
    return write_all(path, std::as_bytes(std::span<const char>(text.data(), text.size())));
  }
  std::vector<std::byte> bytes;
  ReplayStatus st = encode_replay(replay, bytes);
  if (!st.ok()) return st;
  return write_all(path, bytes);
}

// ---- recorder ----------------------------------------------------------------------------

ReplayRecorder::~ReplayRecorder() {
  if (file_ != nullptr) {
    if (frames_ != pair_start_) (void)flush_pair();
    std::fclose(file_);
    file_ = nullptr;
  }
}

ReplayStatus ReplayRecorder::write(const std::vector<std::byte>& bytes) {
  errno = 0;
  if (std::fwrite(bytes.data(), 1, bytes.size(), file_) != bytes.size() || std::fflush(file_) != 0)
    return fail(ErrorCode::IoError, partial_, written_, hash::with_errno("write failed"));
  written_ += bytes.size();
  return ReplayStatus::Ok();
}

ReplayStatus ReplayRecorder::open(const std::string& path, const ReplayHeader& header) {
  if (file_ != nullptr) return fail(ErrorCode::InvalidArgument, path, 0, "recorder already open");
  ReplayStatus st = validate_header(header, path, 0);
  if (!st.ok()) return st;
  hash::Destination dest;
  std::string error;
  if (!hash::inspect_destination(path, dest, error)) return fail(ErrorCode::IoError, path, 0, error);
  direct_ = dest.direct;
  path_ = dest.path;
  header_ = header;
  pending_ = Replay{};
  pending_.header = header;
  frames_ = pair_start_ = written_ = last_total_ = hashes_ = 0;
  hash0_written_ = false;
  if (direct_) {
    partial_ = dest.path;
    file_ = hash::open_direct_for_writing(partial_, error);
  } else {
    // FILE.partial when free; anything already there (an earlier crash's recording, or a
    // planted symlink) is left alone and a FILE.XXXXXX.partial is created instead.
    file_ = hash::create_file_beside(dest.path, ".partial", /*try_plain_first=*/true, partial_, error);
    if (file_ == nullptr) partial_ = dest.path + ".partial";
  }
  if (file_ == nullptr) return fail(ErrorCode::IoError, partial_, 0, error);
  std::vector<std::byte> bytes;
  append_preamble(bytes);
  append_head(bytes, header_);
  st = write(bytes);
  head_bytes_ = written_;
  return st;
}

ReplayStatus ReplayRecorder::initial(const StateHash& hash0) {
  if (file_ == nullptr) return fail(ErrorCode::InvalidArgument, path_, 0, "recorder not open");
  if (!header_.has_hashes()) return ReplayStatus::Ok();
  if (frames_ != 0 || !pending_.hashes.empty()) return fail(ErrorCode::InvalidArgument, path_, 0, "initial hash must come first");
  pending_.add_hash(hash0);
  pending_.hashes.back().tick = 0;
  ++hashes_;
  last_total_ = hash0.total;
  return ReplayStatus::Ok();
}

ReplayStatus ReplayRecorder::tick(std::span<const std::byte> frame, const StateHash* after) {
  if (file_ == nullptr) return fail(ErrorCode::InvalidArgument, path_, 0, "recorder not open");
  if (frame.size() != header_.frame_bytes())
    return fail_tick(ErrorCode::InvalidArgument, path_, written_, frames_, "input frame has the wrong size");
  if (header_.has_hashes()) {
    if (after == nullptr) return fail_tick(ErrorCode::InvalidArgument, path_, written_, frames_, "missing state hash");
    if (frames_ == 0 && pending_.hashes.empty())
      return fail(ErrorCode::InvalidArgument, path_, 0, "call initial() with the tick-0 hash first");
    pending_.add_hash(*after);
    pending_.hashes.back().tick = frames_ + 1;
    ++hashes_;
    last_total_ = after->total;
  }
  pending_.inputs.insert(pending_.inputs.end(), frame.begin(), frame.end());
  ++frames_;
  if (frames_ - pair_start_ == header_.block_ticks) return flush_pair();
  return ReplayStatus::Ok();
}

ReplayStatus ReplayRecorder::flush_pair() {
  std::vector<std::byte> bytes;
  try {
    if (frames_ != pair_start_) append_inputs(bytes, pair_start_, header_.frame_bytes(), pending_.inputs);
    if (!pending_.hashes.empty()) {
      const auto nc = static_cast<std::uint32_t>(header_.has_component_hashes() ? header_.components.size() : 0);
      append_hashes(bytes, pending_.hashes, pending_.component_hashes, nc);
      hash0_written_ = true;
    }
    for (const Checkpoint& cp : pending_.checkpoints) append_checkpoint(bytes, cp);
  } catch (const std::exception& e) {
    return fail(ErrorCode::Internal, partial_, written_, std::string("serialisation failed: ") + e.what());
  }
  pending_.inputs.clear();
  pending_.hashes.clear();
  pending_.component_hashes.clear();
  pending_.checkpoints.clear();
  pair_start_ = frames_;
  return write(bytes);
}

ReplayStatus ReplayRecorder::checkpoint(const StorageView& state) {
  if (ReplayStatus st = can_checkpoint(state.tick()); !st.ok()) return st;
  Checkpoint cp;
  cp.tick = frames_;
  const FileStatus fs = encode_snapshot(state, cp.snapshot);
  if (!fs.ok()) return fail_tick(ErrorCode::Internal, path_, written_, frames_, "snapshot encoding failed: " + fs.message);
  return add_checkpoint(std::move(cp));
}

ReplayStatus ReplayRecorder::checkpoint(const World& world) {
  if (ReplayStatus st = can_checkpoint(world.tick()); !st.ok()) return st;
  Checkpoint cp;
  cp.tick = frames_;
  const FileStatus fs = encode_world_snapshot(world, cp.snapshot);
  if (!fs.ok()) return fail_tick(ErrorCode::Internal, path_, written_, frames_, "snapshot encoding failed: " + fs.message);
  return add_checkpoint(std::move(cp));
}

ReplayStatus ReplayRecorder::can_checkpoint(std::uint64_t tick) const {
  if (file_ == nullptr) return fail(ErrorCode::InvalidArgument, path_, 0, "recorder not open");
  if ((header_.flags & kReplayHasCheckpoints) == 0)
    return fail(ErrorCode::InvalidArgument, path_, 0, "header declares no checkpoints");
  if (tick != frames_)
    return fail_tick(ErrorCode::InvalidArgument, path_, written_, tick, "checkpoint tick differs from the frame count");
  return ReplayStatus::Ok();
}

ReplayStatus ReplayRecorder::add_checkpoint(Checkpoint cp) {
  if (frames_ == pair_start_) {
    std::vector<std::byte> bytes;
    append_checkpoint(bytes, cp);
    return write(bytes);
  }
  pending_.checkpoints.push_back(std::move(cp));
  return ReplayStatus::Ok();
}

ReplayStatus ReplayRecorder::append_recorded(const Replay& from, std::uint64_t through) {
  if (file_ == nullptr) return fail(ErrorCode::InvalidArgument, path_, 0, "recorder not open");
  if (frames_ != 0 || !pending_.hashes.empty() || written_ != head_bytes_)
    return fail(ErrorCode::InvalidArgument, path_, 0, "append_recorded needs a fresh recorder");
  if (!(from.header == header_)) return fail(ErrorCode::Mismatch, path_, 0, "the copied recording has another header");
  if (through > from.frame_count())
    return fail_tick(ErrorCode::InvalidArgument, path_, 0, through, "the copied recording ends before this tick");
  const bool hashes = header_.has_hashes();
  if (hashes && from.hashes.size() < through + 1)
    return fail_tick(ErrorCode::InvalidArgument, path_, 0, from.hashes.size(), "the copied recording lacks a hash");
  const std::size_t nc = header_.has_component_hashes() ? header_.components.size() : 0;
  const auto push_hash = [&](std::uint64_t t) {
    pending_.hashes.push_back(from.hashes[t]);
    const std::span<const std::uint64_t> row = from.components_at(t);
    if (row.size() == nc) pending_.component_hashes.insert(pending_.component_hashes.end(), row.begin(), row.end());
    else pending_.component_hashes.insert(pending_.component_hashes.end(), nc, 0);
    ++hashes_;
    last_total_ = from.hashes[t].total;
  };
  std::size_t next_cp = 0;
  const auto checkpoints_at = [&](std::uint64_t t) -> ReplayStatus {
    for (; next_cp < from.checkpoints.size() && from.checkpoints[next_cp].tick <= t; ++next_cp)
      if (from.checkpoints[next_cp].tick == t)
        if (ReplayStatus st = add_checkpoint(from.checkpoints[next_cp]); !st.ok()) return st;
    return ReplayStatus::Ok();
  };
  if (hashes) push_hash(0);
  if (ReplayStatus st = checkpoints_at(0); !st.ok()) return st;
  for (std::uint64_t t = 0; t < through; ++t) {
    const std::span<const std::byte> f = from.frame(t);
    pending_.inputs.insert(pending_.inputs.end(), f.begin(), f.end());
    if (hashes) push_hash(t + 1);
    ++frames_;
    if (frames_ - pair_start_ == header_.block_ticks)
      if (ReplayStatus st = flush_pair(); !st.ok()) return st;
    if (ReplayStatus st = checkpoints_at(frames_); !st.ok()) return st;
  }
  return ReplayStatus::Ok();
}

ReplayStatus ReplayRecorder::close() {
  if (file_ == nullptr) return fail(ErrorCode::InvalidArgument, path_, 0, "recorder not open");
  ReplayStatus st = ReplayStatus::Ok();
  if (frames_ != pair_start_ || !pending_.hashes.empty() || !pending_.checkpoints.empty()) st = flush_pair();
  if (st.ok()) {
    std::vector<std::byte> bytes;
    const std::uint64_t hash_count = hashes_;
    append_end(bytes, frames_, hash_count, header_.has_hashes() ? last_total_ : 0);
    st = write(bytes);
  }
  errno = 0;
  // fsync is for files that are renamed into place; a device or pipe only needs its flush.
  bool good = st.ok() && (direct_ ? std::fflush(file_) == 0 : hash::flush_to_disk(file_));
  good = (std::fclose(file_) == 0) && good;
  const std::string why = hash::with_errno("close failed");
  file_ = nullptr;
  if (!st.ok()) return st;
  if (!good) return fail(ErrorCode::IoError, partial_, written_, why);
  if (direct_) return ReplayStatus::Ok();
  errno = 0;
  if (!hash::replace_file(partial_, path_))
    return fail(ErrorCode::IoError, path_, 0, hash::with_errno("cannot rename " + partial_ + " over it"));
  return ReplayStatus::Ok();
}

}  // namespace lockstep::replay
