#pragma once
// The human side of a netsim match (`lockstep netsim`, rollback/netsim_report.h): the request
// as a person gives it — network conditions in milliseconds and probabilities — their check
// and conversion to the simulated network's integer units, and the report lines that show
// them. Floating point is display and argument parsing only: the match itself
// (rollback::NetsimOptions) sees integer microseconds and parts per million.
#include <lockstep/inspect/json_writer.h>

#include <cstdint>
#include <string>
#include <vector>

namespace lockstep::inspect {

struct NetsimRequest {
  std::string sim;
  std::uint32_t peers = 2;
  std::uint32_t players = 0;  // 0: as many as the sim accepts, up to peers
  std::uint32_t units = 0;
  std::vector<std::uint32_t> params;  // at most 4
  std::uint64_t ticks = 3600;
  std::uint64_t seed = 1;  // of the network, the world and (by default) the bots
  std::uint64_t bot = 0;
  bool bot_given = false;  // false: the bots' seed is `seed`
  double latency_ms = 80;  // one-way, 0..10000
  double jitter_ms = 30;   // 0..10000
  double loss = 0.1;       // probabilities, 0..1
  double duplicate = 0;
  double reorder = 0;
  std::uint32_t input_delay = 2;
  std::uint32_t max_prediction = 8;
  std::uint32_t hash_interval = 16;
  std::uint32_t tick_hz = 60;
  std::uint32_t threads = 0;
};

// The request's conditions in the simulated network's units (rollback::NetworkConditions).
struct NetsimUnits {
  std::uint32_t latency_us = 0, jitter_us = 0;
  std::uint32_t loss_ppm = 0, duplicate_ppm = 0, reorder_ppm = 0;
};

// Checks the conditions and converts them (rounded to the nearest µs / ppm). Returns "" or
// what is wrong: "--latency-ms and --jitter-ms must be 0..10000", "--loss, --duplicate and
// --reorder are probabilities in 0..1" or "--loss 1 would never deliver anything" (more than
// one peer).
std::string netsim_units_from(const NetsimRequest& request, NetsimUnits& out);

// The report's first line, e.g. "netsim duel: 2 peers (2 players), 3600 ticks at 60 Hz;
// one-way latency 80 ms ± 30 ms, loss 10.0%, duplicate 0.0%, reorder 0.0%; input delay 2,
// prediction window 8, hash every 16 ticks, seed 1\n". `players`: those of the match.
std::string netsim_request_line(const NetsimRequest& request, std::uint32_t players);
// "frames: F (S s of simulated time for T s of ticks; W s wall)\n": F frames and the ticks at
// tick_hz in seconds (one decimal), the wall time (two decimals).
std::string netsim_frames_line(const NetsimRequest& request, std::uint64_t frames, std::uint64_t wall_ns);

// The request as fields of an open JSON object: sim, peers, players, ticks, latency_ms,
// jitter_ms, loss, duplicate, reorder, seed, input_delay, max_prediction, hash_interval, threads.
void append_netsim_request_fields(JsonWriter& j, const NetsimRequest& request, std::uint32_t players);
// Field "seconds": `wall_ns` in seconds.
void append_wall_seconds(JsonWriter& j, std::uint64_t wall_ns);

}  // namespace lockstep::inspect
