#pragma once
// Desync bundles: one self-describing, checksummed file written at the FIRST divergent tick
// by verify, synctest, netsim and RollbackSession (docs/inspect.md, "Bundle format").
//
// A bundle holds everything needed to answer "what diverged, where, and how" offline, on any
// host, without the game's code: the sim identity and config, the divergent tick and (when
// known) system, one or two sides (each: a label, the state as a snapshot file when known,
// and the hash breakdown incl. per-component and per-resource sub-hashes), the last
// agreeing state with the inputs from it to the divergent tick, the report text, and
// build/platform facts (compiler, target, flags, lockstep and sim version, schema hash).
//
// Written with cereal's PortableBinaryOutputArchive (Options::LittleEndian), read with
// PortableBinaryInputArchive (Options::Default), so a bundle from s390x reads on x86-64.
// Reading checks the trailing XXH3-64 first, then every length against what remains; errors
// name the file, the byte offset and what was expected.
#include <lockstep/hash/snapshot_file.h>
#include <lockstep/hash/state_hash.h>
#include <lockstep/inspect/diff.h>
#include <lockstep/inspect/state.h>
#include <lockstep/replay/sim.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace lockstep::inspect {

inline constexpr char kBundleMagic[8] = {'L', 'S', 'B', 'U', 'N', 'D', 'L', 'E'};
inline constexpr std::uint32_t kBundleVersion = 1;
inline constexpr std::uint64_t kMaxBundleBytes = std::uint64_t{1} << 31;

// A state hash breakdown with names (portable: no fixed arrays).
struct HashBreakdown {
  std::uint64_t tick = 0, total = 0, entities = 0, archetypes = 0, resources = 0;
  std::vector<std::uint64_t> components;      // by component id
  std::vector<std::uint64_t> resource_parts;  // by resource id (per-resource sub-hashes)
  friend bool operator==(const HashBreakdown&, const HashBreakdown&) = default;
};
HashBreakdown breakdown(const StateHash& h);

struct BundleSide {
  std::string label;        // "recording", "this build", "first simulation", "peer 1", ...
  bool has_state = false;   // false: only the hashes of this side are known
  State state;
  HashBreakdown hash;
};

struct Bundle {
  std::string source;       // "verify", "synctest", "netsim", "session"
  std::string sim_name;
  std::uint32_t sim_version = 0;
  std::uint64_t input_schema = 0;
  std::uint32_t input_size = 0;
  replay::SimConfig config{};
  std::uint64_t tick = 0;   // first divergent tick
  std::string system;       // first system whose output differs, when localised
  std::string report;       // the report text the gate printed
  std::vector<std::pair<std::string, std::string>> facts;  // build/platform facts, ordered
  std::vector<BundleSide> sides;                           // 1 or 2
  bool has_agreeing = false;
  State agreeing;           // the last state both sides agreed on (tick < `tick`)
  std::uint64_t inputs_from = 0;  // first tick of `inputs` (= agreeing.tick when present)
  std::uint32_t frame_bytes = 0;
  std::vector<std::byte> inputs;  // canonical frames inputs_from .. tick-1
};

// This build's facts: compiler, target (arch, pointer width, byte order), flags, build type,
// lockstep version; plus sim name/version and the schema hash of `schema` when given.
std::vector<std::pair<std::string, std::string>> build_facts(const replay::Sim* sim = nullptr,
                                                             const State* schema = nullptr);
// XXH3-64 of a state's schema (component and resource names, sizes, fields), hex.
std::uint64_t schema_hash(const State& state);
// Fills sim identity + config fields.
void set_sim(Bundle& b, const replay::Sim& sim, const replay::SimConfig& config);

std::vector<std::byte> encode_bundle(const Bundle& b);
// `verify_checksum` = false only for the fuzzer (to reach the body parser), never for files.
FileStatus decode_bundle(std::span<const std::byte> bytes, Bundle& out, std::string_view name = "<memory>",
                         bool verify_checksum = true);
FileStatus read_bundle_file(const std::string& path, Bundle& out);
// Writes DIR/desync-<source>-tick<T>.lsbundle (temp + rename); `path` receives the name.
FileStatus write_bundle(const std::string& dir, const Bundle& b, std::string& path);
bool looks_like_bundle(std::span<const std::byte> bytes) noexcept;

// The field-level diff a bundle answers: its two states (or nothing when one is missing).
bool bundle_diff(const Bundle& b, StateDiff& out, const DiffOptions& options = {});
// Human-readable header: source, sim, tick, system, sides, facts.
std::string describe_bundle(const Bundle& b);

}  // namespace lockstep::inspect
