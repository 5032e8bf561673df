// Desync bundles (bundle.h).
#include <lockstep/hash/byte_stream.h>
#include <lockstep/hash/durable_file.h>
#include <lockstep/inspect/bundle.h>
#include <lockstep/inspect/dump.h>
#include <lockstep/inspect/svg.h>
#include <lockstep/io/byte_order.h>
#include <lockstep/io/le_reader.h>
#include <lockstep/version.h>

#include <cereal/archives/portable_binary.hpp>

#include <bit>
#include <cstring>
#include <exception>
#include <ostream>

#ifndef LOCKSTEP_BUILD_FLAGS
#define LOCKSTEP_BUILD_FLAGS ""
#endif
#ifndef LOCKSTEP_DETERMINISM_FLAGS
#define LOCKSTEP_DETERMINISM_FLAGS ""
#endif
#ifndef LOCKSTEP_BUILD_TYPE
#define LOCKSTEP_BUILD_TYPE ""
#endif

namespace lockstep::inspect {

HashBreakdown breakdown(const StateHash& h) {
  HashBreakdown b;
  b.tick = h.tick;
  b.total = h.total;
  b.entities = h.entities;
  b.archetypes = h.archetypes;
  b.resources = h.resources;
  b.components.assign(h.components.begin(), h.components.begin() + h.component_count);
  b.resource_parts.assign(h.resource_parts.begin(), h.resource_parts.begin() + h.resource_count);
  return b;
}

std::uint64_t schema_hash(const State& s) {
  State schema_only;
  schema_only.components = s.components;
  schema_only.resources = s.resources;
  schema_only.archetypes.resize(1);
  const std::vector<std::byte> bytes = encode_state(schema_only);
  return xxh3_64(bytes);
}

namespace {
// The version numbers CMake reports as CMAKE_CXX_COMPILER_VERSION, without vendor suffixes.
std::string compiler() {
#if defined(__clang__)
  return "clang " + std::to_string(__clang_major__) + "." + std::to_string(__clang_minor__) + "." +
         std::to_string(__clang_patchlevel__);
#elif defined(__GNUC__)
  return "gcc " + std::to_string(__GNUC__) + "." + std::to_string(__GNUC_MINOR__) + "." +
         std::to_string(__GNUC_PATCHLEVEL__);
#elif defined(_MSC_VER)
  return "msvc " + std::to_string(_MSC_VER);
#else
  return "unknown";
#endif
}
std::string target() {
  std::string arch =
#if defined(__x86_64__) || defined(_M_X64)
      "x86_64";
#elif defined(__i386__) || defined(_M_IX86)
      "i686";
#elif defined(__aarch64__) || defined(_M_ARM64)
      "aarch64";
#elif defined(__arm__)
      "arm";
#elif defined(__s390x__)
      "s390x";
#elif defined(__powerpc64__)
      "ppc64";
#elif defined(__powerpc__)
      "powerpc";
#elif defined(__riscv)
      "riscv";
#elif defined(__wasm__)
      "wasm";
#else
      "unknown";
#endif
  arch += std::endian::native == std::endian::little ? " little-endian" : " big-endian";
  arch += " " + std::to_string(sizeof(void*) * 8) + "-bit";
#if defined(_WIN32)
  arch += " windows";
#elif defined(__linux__)
  arch += " linux";
#elif defined(__EMSCRIPTEN__)
  arch += " emscripten";
#endif
  return arch;
}
}  // namespace

std::vector<std::pair<std::string, std::string>> build_facts(const replay::Sim* sim, const State* schema) {
  std::vector<std::pair<std::string, std::string>> f;
  f.emplace_back("lockstep", LOCKSTEP_VERSION_STRING);
  f.emplace_back("compiler", compiler());
  f.emplace_back("target", target());
  f.emplace_back("build type", LOCKSTEP_BUILD_TYPE);
  f.emplace_back("flags", LOCKSTEP_BUILD_FLAGS);
  // The flags of rule 6 (docs/determinism.md) come from add_compile_options and
  // lockstep::determinism, not CMAKE_CXX_FLAGS: recorded on their own, with what the compiler
  // itself says about fast math in this translation unit.
  f.emplace_back("determinism flags", LOCKSTEP_DETERMINISM_FLAGS);
#if defined(__FAST_MATH__)
  f.emplace_back("fast math", "on (__FAST_MATH__ defined: not a deterministic build)");
#else
  f.emplace_back("fast math", "off");
#endif
  if (sim != nullptr) {
    f.emplace_back("sim", std::string(sim->name()));
    f.emplace_back("sim version", std::to_string(sim->version()));
    f.emplace_back("input schema", to_hex(replay::input_schema_hash(sim->input_type())));
  }
  if (schema != nullptr) {
    f.emplace_back("state schema", to_hex(schema_hash(*schema)));
    // Display annotations the pictures need (svg.h), for the types this state has.
    for (const std::string& m : position_marks())
      if (schema->component_id(std::string_view(m).substr(0, m.find('.'))) >= 0) f.emplace_back("position", m);
  }
  // The sim's drawing hint (replay::DrawHint), so the viewer draws a bundle of any game —
  // also in a tool that does not have the sim (a bundle sent in from a player's machine).
  if (sim != nullptr) {
    const replay::DrawHint h = sim->draw_hint();
    const std::pair<const char*, const char*> hint[] = {{"draw position", h.position}, {"draw x", h.x},
                                                        {"draw y", h.y},               {"draw radius", h.radius},
                                                        {"draw team", h.team},         {"draw label", h.label}};
    for (const auto& [key, value] : hint)
      if (value != nullptr && *value != '\0') f.emplace_back(key, value);
  }
  return f;
}

void set_sim(Bundle& b, const replay::Sim& sim, const replay::SimConfig& config) {
  b.sim_name = std::string(sim.name());
  b.sim_version = sim.version();
  b.input_schema = replay::input_schema_hash(sim.input_type());
  b.input_size = sim.input_type().size;
  b.config = config;
}

bool looks_like_bundle(std::span<const std::byte> bytes) noexcept {
  return bytes.size() >= 9 && std::memcmp(bytes.data() + 1, kBundleMagic, 8) == 0;
}

// ---- writing ---------------------------------------------------------------------------

namespace {
using Out = cereal::PortableBinaryOutputArchive;

void put_str(Out& ar, const std::string& s) {
  ar(static_cast<std::uint32_t>(s.size()));
  if (!s.empty()) ar(cereal::binary_data(reinterpret_cast<const std::uint8_t*>(s.data()), s.size()));
}
void put_bytes(Out& ar, const std::vector<std::byte>& v) {
  ar(static_cast<std::uint32_t>(v.size()));
  if (!v.empty()) ar(cereal::binary_data(reinterpret_cast<const std::uint8_t*>(v.data()), v.size()));
}
void put_u64s(Out& ar, const std::vector<std::uint64_t>& v) {
  ar(static_cast<std::uint32_t>(v.size()));
  for (std::uint64_t x : v) ar(x);
}
void put_hash(Out& ar, const HashBreakdown& h) {
  ar(h.tick, h.total, h.entities, h.archetypes, h.resources);
  put_u64s(ar, h.components);
  put_u64s(ar, h.resource_parts);
}
}  // namespace

std::vector<std::byte> encode_bundle(const Bundle& b) {
  std::vector<std::byte> out;
  {
    hash::ByteVectorSink sink(out);
    std::ostream os(&sink);
    Out ar(os, Out::Options::LittleEndian());
    ar(cereal::binary_data(reinterpret_cast<const std::uint8_t*>(kBundleMagic), 8));
    ar(kBundleVersion);
    put_str(ar, b.source);
    put_str(ar, b.sim_name);
    ar(b.sim_version, b.input_schema, b.input_size);
    ar(b.config.players, b.config.units, b.config.seed, b.config.params[0], b.config.params[1], b.config.params[2],
       b.config.params[3]);
    ar(b.tick);
    put_str(ar, b.system);
    put_str(ar, b.report);
    ar(static_cast<std::uint32_t>(b.facts.size()));
    for (const auto& [k, v] : b.facts) {
      put_str(ar, k);
      put_str(ar, v);
    }
    ar(static_cast<std::uint32_t>(b.sides.size()));
    for (const BundleSide& s : b.sides) {
      put_str(ar, s.label);
      ar(static_cast<std::uint8_t>(s.has_state ? 1 : 0));
      if (s.has_state) put_bytes(ar, encode_state(s.state));
      put_hash(ar, s.hash);
    }
    ar(static_cast<std::uint8_t>(b.has_agreeing ? 1 : 0));
    if (b.has_agreeing) put_bytes(ar, encode_state(b.agreeing));
    ar(b.inputs_from, b.frame_bytes);
    put_bytes(ar, b.inputs);
  }
  const std::uint64_t sum = xxh3_64(out);
  io::append_u64(out, sum);
  return out;
}

// ---- reading ---------------------------------------------------------------------------

namespace {
using Reader = io::BasicLeReader<FileStatus>;
constexpr std::uint32_t kMaxText = 1u << 20;

bool get_state(Reader& r, State& s, bool verify, std::string_view name, const char* what) {
  std::uint32_t n = 0;
  if (!r.num(n, what) || !r.need(n, what)) return false;
  const std::uint64_t at = r.pos();
  std::vector<std::byte> bytes;
  if (!r.bytes(bytes, n, what)) return false;
  // Errors inside the embedded snapshot are reported at their offset in the bundle.
  FileStatus st = decode_state(bytes, s, std::string(name) + " (" + what + ")", verify);
  if (!st.ok()) return r.error_at(st.code, at + st.offset, std::string(what) + ": " + st.message);
  return true;
}
bool get_u64s(Reader& r, std::vector<std::uint64_t>& v, const char* what) {
  std::uint32_t n = 0;
  const std::uint64_t at = r.pos();
  if (!r.num(n, what)) return false;
  if (n > 256) return r.error_at(ErrorCode::Corrupt, at, std::string("expected at most 256 ") + what + ", found " + std::to_string(n));
  if (!r.need(std::uint64_t{n} * 8, what)) return false;
  v.resize(n);
  for (auto& x : v) r.num(x, what);
  return r.ok();
}
bool get_hash(Reader& r, HashBreakdown& h) {
  return r.num(h.tick, "hash tick") && r.num(h.total, "total hash") && r.num(h.entities, "entities hash") &&
         r.num(h.archetypes, "archetypes hash") && r.num(h.resources, "resources hash") &&
         get_u64s(r, h.components, "component hashes") && get_u64s(r, h.resource_parts, "resource hashes");
}
}  // namespace

FileStatus decode_bundle(std::span<const std::byte> bytes, Bundle& out, std::string_view name, bool verify_checksum) {
  out = Bundle{};
  auto fail = [&](ErrorCode code, std::uint64_t offset, const std::string& what) {
    return io::file_error<FileStatus>(name, code, offset, what);
  };
  const std::uint64_t size = bytes.size();
  if (size > kMaxBundleBytes)
    return fail(ErrorCode::CapacityExceeded, 0, "expected at most " + std::to_string(kMaxBundleBytes) + " bytes, found " + std::to_string(size));
  if (size < 1 + 8 + 4 + 8)
    return fail(ErrorCode::Corrupt, size, "truncated: expected at least 21 bytes (bundle header and checksum), file has " +
                                              std::to_string(size));
  if (std::to_integer<unsigned>(bytes[0]) != 1)
    return fail(ErrorCode::Corrupt, 0, "expected the little-endian flag 1, found " + std::to_string(std::to_integer<unsigned>(bytes[0])));
  if (std::memcmp(bytes.data() + 1, kBundleMagic, 8) != 0) return fail(ErrorCode::Corrupt, 1, "expected the bundle magic \"LSBUNDLE\"");
  const std::uint64_t body = size - 8;
  const std::uint64_t stored = io::get_u64(bytes.data() + body);
  const std::uint64_t actual = xxh3_64(bytes.first(body));
  if (verify_checksum && stored != actual)
    return fail(ErrorCode::Corrupt, body, "expected checksum " + to_hex(actual) + " of the preceding bytes, stored " +
                                              to_hex(stored) + " (truncated or corrupted)");
  try {
    Reader r(bytes.first(body), name);
    std::uint8_t endianness = 0;
    char magic[8];
    std::uint32_t version = 0;
    if (!r.num(endianness, "endianness flag") || !r.raw(magic, 8, "magic") || !r.num(version, "format version"))
      return std::move(r.status());
    if (version != kBundleVersion) {
      r.error_at(ErrorCode::Mismatch, 9, "expected bundle format version " + std::to_string(kBundleVersion) + ", found " +
                                             std::to_string(version));
      return std::move(r.status());
    }
    Bundle& b = out;
    std::uint32_t nfacts = 0, nsides = 0;
    std::uint8_t flag = 0;
    bool ok = r.text(b.source, 64, "source") && r.text(b.sim_name, 64, "sim name") && r.num(b.sim_version, "sim version") &&
              r.num(b.input_schema, "input schema") && r.num(b.input_size, "input size") &&
              r.num(b.config.players, "players") && r.num(b.config.units, "units") && r.num(b.config.seed, "seed") &&
              r.num(b.config.params[0], "params") && r.num(b.config.params[1], "params") &&
              r.num(b.config.params[2], "params") && r.num(b.config.params[3], "params") && r.num(b.tick, "tick") &&
              r.text(b.system, 255, "system name") && r.text(b.report, kMaxText, "report") && r.num(nfacts, "fact count");
    if (ok && nfacts > 64) ok = r.error(ErrorCode::Corrupt, "expected at most 64 facts, found " + std::to_string(nfacts));
    for (std::uint32_t i = 0; ok && i < nfacts; ++i) {
      std::pair<std::string, std::string> f;
      ok = r.text(f.first, 255, "fact name") && r.text(f.second, 4096, "fact value");
      b.facts.push_back(std::move(f));
    }
    const std::uint64_t sides_at = r.pos();
    ok = ok && r.num(nsides, "side count");
    if (ok && (nsides < 1 || nsides > 2))
      ok = r.error_at(ErrorCode::Corrupt, sides_at, "expected 1 or 2 sides, found " + std::to_string(nsides));
    for (std::uint32_t i = 0; ok && i < nsides; ++i) {
      BundleSide s;
      const std::uint64_t flag_at = r.pos() + 4;
      ok = r.text(s.label, 255, "side label") && r.num(flag, "side state flag");
      if (ok && flag > 1) ok = r.error_at(ErrorCode::Corrupt, flag_at + s.label.size(), "expected a state flag 0 or 1, found " + std::to_string(flag));
      s.has_state = flag == 1;
      if (ok && s.has_state) ok = get_state(r, s.state, verify_checksum, name, "side state");
      ok = ok && get_hash(r, s.hash);
      b.sides.push_back(std::move(s));
    }
    const std::uint64_t agree_at = r.pos();
    ok = ok && r.num(flag, "agreeing-state flag");
    if (ok && flag > 1) ok = r.error_at(ErrorCode::Corrupt, agree_at, "expected a state flag 0 or 1, found " + std::to_string(flag));
    b.has_agreeing = flag == 1;
    if (ok && b.has_agreeing) ok = get_state(r, b.agreeing, verify_checksum, name, "agreeing state");
    std::uint32_t ninputs = 0;
    ok = ok && r.num(b.inputs_from, "inputs start tick") && r.num(b.frame_bytes, "frame size") && r.num(ninputs, "input bytes");
    if (ok) ok = r.bytes(b.inputs, ninputs, "input frames");
    if (ok && b.frame_bytes != 0 && b.inputs.size() % b.frame_bytes != 0)
      ok = r.error(ErrorCode::Corrupt, "expected whole input frames of " + std::to_string(b.frame_bytes) + " bytes");
    if (ok && r.remaining() != 0)
      ok = r.error(ErrorCode::Corrupt, "expected the checksum, found " + std::to_string(r.remaining()) + " more bytes");
    if (!ok) {
      FileStatus st = std::move(r.status());
      out = Bundle{};
      return st;
    }
  } catch (const std::exception& e) {
    out = Bundle{};
    return fail(ErrorCode::Corrupt, 0, std::string("decode failed: ") + e.what());
  }
  return FileStatus::Ok();
}

FileStatus read_bundle_file(const std::string& path, Bundle& out) {
  std::vector<std::byte> bytes;
  FileStatus st = read_file_bytes(path, bytes, kMaxBundleBytes);
  if (!st.ok()) return st;
  return decode_bundle(bytes, out, path);
}

FileStatus write_bundle(const std::string& dir, const Bundle& b, std::string& path) {
  path = (dir.empty() ? std::string(".") : dir) + "/desync-" + b.source + "-tick" + std::to_string(b.tick) + ".lsbundle";
  const std::vector<std::byte> bytes = encode_bundle(b);
  hash::WriteFailure failure;
  if (!hash::write_file_atomically(path, bytes.data(), bytes.size(), failure)) {
    FileStatus st;
    st.code = ErrorCode::IoError;
    st.offset = failure.written;
    st.message = failure.failed_path + ": " + failure.what;
    return st;
  }
  return FileStatus::Ok();
}

bool bundle_diff(const Bundle& b, StateDiff& out, const DiffOptions& options) {
  if (b.sides.size() != 2 || !b.sides[0].has_state || !b.sides[1].has_state) return false;
  out = diff(b.sides[0].state, b.sides[1].state, options);
  return true;
}

std::string describe_bundle(const Bundle& b) {
  std::string o = "desync bundle: " + b.source + ", sim " + b.sim_name + " v" + std::to_string(b.sim_version) +
                  ", first divergent tick " + std::to_string(b.tick);
  if (!b.system.empty()) o += ", system " + b.system;
  o += "\n";
  for (const BundleSide& s : b.sides)
    o += "side " + s.label + ": total " + to_hex(s.hash.total) + (s.has_state ? ", state kept" : ", hashes only") + "\n";
  if (b.has_agreeing)
    o += "last agreeing state: tick " + std::to_string(b.agreeing.tick) + "; inputs " +
         std::to_string(b.frame_bytes == 0 ? 0 : b.inputs.size() / b.frame_bytes) + " frames from tick " +
         std::to_string(b.inputs_from) + "\n";
  for (const auto& [k, v] : b.facts) o += k + ": " + v + "\n";
  return o;
}

}  // namespace lockstep::inspect
