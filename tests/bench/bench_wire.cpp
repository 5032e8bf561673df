// What message authentication costs (docs/rollback.md, "Threat model"; issue figures in
// docs/benchmarks.md).
//
//   BM_mac/N        the session's MAC of one N-byte message: keyed BLAKE2b-128 (libsodium),
//                   exactly the construction of rollback/src/wire_auth.cpp
//   BM_xxh3/N       the raw limit of the same run: XXH3-64 of the same N bytes (what the UDP
//                   frame checksum already costs per datagram)
//   BM_match/P/A    a whole in-process duel match over the simulated network (no latency, no
//                   loss): P peers (2 players, P − 2 spectators), 600 ticks, A = 1 authenticated
//                   / 0 unauthenticated; counter us_per_tick = thread CPU per simulated tick of
//                   ALL peers together (their sessions, sims and the network)
// The summary prints the per-message MAC time, its ratio to XXH3, and the session's CPU per
// tick with and without authentication at 2 and 8 peers.
#include "ratio_reporter.h"

#include <lockstep/fixtures/fixtures.h>
#include <lockstep/replay/runner.h>
#include <lockstep/rollback/session.h>
#include <lockstep/rollback/sim_network.h>

#include <benchmark/benchmark.h>
#include <sodium.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include <cstdio>
#include <ctime>
#include <memory>
#include <vector>

using namespace lockstep;
using namespace lockstep::replay;
using namespace lockstep::rollback;

namespace {

double thread_cpu_us() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e6 + static_cast<double>(ts.tv_nsec) / 1e3;
}

void BM_mac(benchmark::State& state) {
  if (sodium_init() < 0) {
    state.SkipWithError("sodium_init failed");
    return;
  }
  std::vector<unsigned char> msg(static_cast<std::size_t>(state.range(0)), 0x5A);
  const MatchKey key = insecure_test_key(1);
  static const unsigned char personal[16] = {'l', 'o', 'c', 'k', 's', 't', 'e', 'p', '-', 'm', 's', 'g', '-', 'v', '3', 0};
  unsigned char tag[16];
  for (auto _ : state) {
    crypto_generichash_blake2b_state st;
    crypto_generichash_blake2b_init_salt_personal(&st, key.bytes.data(), key.bytes.size(), sizeof tag, nullptr, personal);
    const unsigned char receiver = 1;
    crypto_generichash_blake2b_update(&st, &receiver, 1);
    crypto_generichash_blake2b_update(&st, msg.data(), msg.size());
    crypto_generichash_blake2b_final(&st, tag, sizeof tag);
    benchmark::DoNotOptimize(tag);
    msg[0] = tag[0];
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * state.range(0));
}

void BM_xxh3(benchmark::State& state) {
  std::vector<unsigned char> msg(static_cast<std::size_t>(state.range(0)), 0x5A);
  for (auto _ : state) {
    const XXH64_hash_t h = XXH3_64bits(msg.data(), msg.size());
    benchmark::DoNotOptimize(h);
    msg[0] = static_cast<unsigned char>(h);
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * state.range(0));
}

constexpr std::uint64_t kTicks = 600;

// One match; returns thread CPU µs per tick (all peers).
double play_match(std::uint32_t peers, bool authenticated) {
  SimNetworkConfig nc;
  nc.peers = peers;
  SimNetwork net(nc);
  SimConfig config;
  config.players = 2;
  const Sim& sim = fixtures::duel_sim();
  std::vector<std::unique_ptr<Runner>> runners;
  std::vector<std::unique_ptr<RollbackSession>> sessions;
  std::vector<std::unique_ptr<Bot>> bots;
  for (std::uint32_t i = 0; i < peers; ++i) {
    runners.push_back(std::make_unique<Runner>(sim, config));
    SessionConfig sc = SessionConfig::one_player_per_peer(peers, 2, i);
    sc.input_delay = 2;
    sc.max_prediction = 8;
    sc.hash_interval = 16;
    sc.security = authenticated ? WireSecurity::Authenticated : WireSecurity::Unauthenticated;
    sc.match_key = insecure_test_key(1);
    sessions.push_back(std::make_unique<RollbackSession>(*runners[i], sc, &net.endpoint(i)));
    bots.push_back(i < 2 ? sim.make_bot(config, 1, i) : nullptr);
  }
  std::vector<std::byte> buf(sim.input_type().size);
  const double t0 = thread_cpu_us();
  std::uint64_t now = 0;
  for (std::uint64_t frame = 0; frame < 20 * kTicks; ++frame, now += 16667) {
    net.advance_to(now);
    bool done = true;
    for (std::uint32_t i = 0; i < peers; ++i) {
      RollbackSession& s = *sessions[i];
      if (i < 2 && s.wants_local_input(i) && s.local_input_tick(i) < kTicks) {
        bots[i]->generate(s.local_input_tick(i), runners[i]->world(), buf);
        (void)s.add_local_input(i, buf);
      }
      (void)(s.current_tick() < kTicks ? s.advance() : s.poll());
      done = done && s.confirmed_tick() >= kTicks;
    }
    if (done) break;
  }
  return (thread_cpu_us() - t0) / static_cast<double>(kTicks);
}

void BM_match(benchmark::State& state) {
  const auto peers = static_cast<std::uint32_t>(state.range(0));
  const bool auth = state.range(1) != 0;
  double us = 0;
  std::uint64_t n = 0;
  for (auto _ : state) {
    us += play_match(peers, auth);
    ++n;
  }
  state.counters["us_per_tick"] = us / static_cast<double>(n);
}

}  // namespace

BENCHMARK(BM_mac)->Arg(96)->Arg(300)->Arg(1200)->Repetitions(5)->ReportAggregatesOnly(true);
BENCHMARK(BM_xxh3)->Arg(96)->Arg(300)->Arg(1200)->Repetitions(5)->ReportAggregatesOnly(true);
BENCHMARK(BM_match)->Args({2, 0})->Args({2, 1})->Args({8, 0})->Args({8, 1})->Unit(benchmark::kMillisecond)
    ->Repetitions(5)->ReportAggregatesOnly(true);

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  lockstep_bench::RatioReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  std::printf("\nsummary (medians of 5 repetitions, thread CPU time):\n");
  for (int n : {96, 300, 1200}) {
    const double mac = reporter.ns("BM_mac/" + std::to_string(n) + "/repeats:5");
    const double xxh = reporter.ns("BM_xxh3/" + std::to_string(n) + "/repeats:5");
    if (mac > 0 && xxh > 0)
      std::printf("MAC of a %4d-byte message: %7.1f ns = %5.1f x XXH3 of the same bytes (%.1f ns)\n", n, mac, mac / xxh, xxh);
  }
  for (int peers : {2, 8}) {
    const std::string base = "BM_match/" + std::to_string(peers);
    const double off = reporter.ns(base + "/0/repeats:5"), on = reporter.ns(base + "/1/repeats:5");
    if (off > 0 && on > 0)
      std::printf("%d peers, 600-tick duel match: %.2f ms CPU unauthenticated, %.2f ms authenticated: x%.3f "
                  "(%.2f us per tick more)\n",
                  peers, off / 1e6, on / 1e6, on / off, (on - off) / 1e3 / static_cast<double>(kTicks));
  }
  return 0;
}
