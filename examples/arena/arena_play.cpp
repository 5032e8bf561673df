// arena-play: a person plays arena against another person over UDP, in a terminal.
//
//   arena-play --id 0 --peers 127.0.0.1:7000,127.0.0.1:7001 --record p0.replay
//   arena-play --id 1 --peers 127.0.0.1:7000,127.0.0.1:7001 --record p1.replay
//
// Arrow keys or WASD move your team's rally point, space charges, q leaves. The frame loop is
// lockstep's (rollback::MatchLoop): this file only reads the keyboard, says what the local
// player's input is, and draws the world with ANSI escapes. Each process records the confirmed
// match; both recordings are byte-identical and verify with `arena-lockstep verify`.
// Floating point: none (the status line prints integers).
#include "arena.h"

#include <lockstep/replay/replay_file.h>
#include <lockstep/replay/runner.h>
#include <lockstep/replay/sim.h>
#include <lockstep/rollback/match_key.h>
#include <lockstep/rollback/match_loop.h>
#include <lockstep/rollback/session.h>
#include <lockstep/rollback/udp_transport.h>

#include <poll.h>
#include <termios.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

namespace {

namespace ls = lockstep;
namespace rb = lockstep::rollback;

struct Options {
  std::uint32_t id = 0;
  std::vector<std::string> peers;
  std::string record, key_file;
  bool no_auth = false;
  std::uint64_t ticks = 3600;  // a minute at 60 Hz
  std::uint32_t units = 12;
  std::uint32_t session_id = 1;
  std::uint64_t seed = 1;
};

constexpr const char* kUsage =
    "usage: arena-play --id N --peers HOST:PORT,HOST:PORT [--record FILE] [--key-file FILE | --no-auth]\n"
    "                  [--ticks N] [--units N] [--seed N] [--session-id N]\n";

[[noreturn]] void usage(const char* why) {
  std::fprintf(stderr, "arena-play: %s\n%s", why, kUsage);
  std::exit(2);
}

[[noreturn]] void help() {
  std::printf("arena-play: two people play arena over UDP, each in a terminal.\n%s"
              "\n"
              "  --id N              0 or 1: which player you are (0 red, 1 blue)\n"
              "  --peers A,B         player 0's address, then player 1's (both processes get the same list)\n"
              "  --record FILE       record the confirmed match (verify it with arena-lockstep verify FILE)\n"
              "  --key-file FILE     the match key both players share; --no-auth: unauthenticated messages\n"
              "  --ticks N           the match's length in ticks at 60 Hz (default 3600, a minute)\n"
              "  --units N           fighters per team (default 12)\n"
              "  --seed N            the world's seed (default 1)\n"
              "  --session-id N      tells matches on the same ports apart (default 1)\n"
              "\n"
              "How to play: your fighters follow your rally point X. They fight only inside the ring (the dots\n"
              "in the middle): lead them there with the arrow keys or WASD, space charges (faster), q leaves.\n"
              "In the ring every fighter is hit by the enemies around it; each fighter that falls scores a kill\n"
              "for the strongest enemy team there. When the time is up, the team with the most kills wins.\n"
              "\n"
              "Example (two terminals):\n"
              "  arena-play --id 0 --peers 127.0.0.1:7000,127.0.0.1:7001 --record p0.replay\n"
              "  arena-play --id 1 --peers 127.0.0.1:7000,127.0.0.1:7001 --record p1.replay\n",
              kUsage);
  std::exit(0);
}

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  std::size_t from = 0;
  for (std::size_t comma; (comma = s.find(',', from)) != std::string::npos; from = comma + 1) out.push_back(s.substr(from, comma - from));
  out.push_back(s.substr(from));
  return out;
}

std::uint64_t number(const char* flag, const std::string& v, std::uint64_t max) {
  char* end = nullptr;
  const unsigned long long n = std::strtoull(v.c_str(), &end, 10);
  if (v.empty() || *end != '\0' || n > max) usage((std::string(flag) + ": expected a number up to " + std::to_string(max)).c_str());
  return n;
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string k = argv[i];
    if (k == "--help" || k == "-h") help();
    if (k == "--no-auth") {
      o.no_auth = true;
      continue;
    }
    if (i + 1 >= argc) usage(("missing value for " + k).c_str());
    const std::string v = argv[++i];
    if (k == "--id") o.id = static_cast<std::uint32_t>(number("--id", v, 1));
    else if (k == "--peers") o.peers = split(v);
    else if (k == "--record") o.record = v;
    else if (k == "--key-file") o.key_file = v;
    else if (k == "--ticks") o.ticks = number("--ticks", v, 10000000);
    else if (k == "--units") o.units = static_cast<std::uint32_t>(number("--units", v, 100));
    else if (k == "--seed") o.seed = number("--seed", v, ~std::uint64_t{0});
    else if (k == "--session-id") o.session_id = static_cast<std::uint32_t>(number("--session-id", v, 0xFFFFFFFFu));
    else usage(("unknown option " + k).c_str());
  }
  if (o.peers.size() != 2) usage("--peers needs two addresses (player 0's, then player 1's)");
  if (o.units == 0 || o.ticks == 0) usage("--units and --ticks must be positive");
  return o;
}

// ---- the terminal: raw keys in, ANSI out; restored on every way out --------------------------
termios g_saved{};
bool g_raw = false;
volatile std::sig_atomic_t g_stop = 0;

void restore_terminal() {
  if (g_raw) ::tcsetattr(STDIN_FILENO, TCSANOW, &g_saved);
  g_raw = false;
  std::fputs("\x1b[0m\x1b[?25h\n", stdout);  // attributes off, cursor back
  std::fflush(stdout);
}

extern "C" void on_signal(int) { g_stop = 1; }

void raw_terminal() {
  if (::isatty(STDIN_FILENO) && ::tcgetattr(STDIN_FILENO, &g_saved) == 0) {
    termios t = g_saved;
    t.c_lflag &= ~static_cast<tcflag_t>(ICANON | ECHO);
    t.c_cc[VMIN] = 0;
    t.c_cc[VTIME] = 0;
    g_raw = ::tcsetattr(STDIN_FILENO, TCSANOW, &t) == 0;
  }
  std::atexit(restore_terminal);
  std::signal(SIGINT, on_signal);
  std::signal(SIGTERM, on_signal);
  std::signal(SIGHUP, on_signal);
  std::fputs("\x1b[?25l\x1b[2J", stdout);  // cursor hidden, screen cleared
}

// Terminals report presses, not releases: a direction stays held this many ticks after its
// last press (auto-repeat presses again every ~33 ms while the key is down).
constexpr std::uint64_t kHoldTicks = 12;

class Keyboard {
 public:
  // Reads every pending key; false once the player asked to leave.
  bool read(std::uint64_t tick) {
    unsigned char buf[64];
    for (;;) {
      pollfd p{STDIN_FILENO, POLLIN, 0};
      if (::poll(&p, 1, 0) <= 0 || (p.revents & POLLIN) == 0) break;
      const ssize_t n = ::read(STDIN_FILENO, buf, sizeof buf);
      if (n <= 0) break;
      for (ssize_t i = 0; i < n; ++i) {
        const unsigned char c = buf[i];
        if (escape_ == 0 && (c == 'q' || c == 'Q' || c == 3)) return false;
        if (c == 27) {  // ESC [ A..D: the arrow keys
          escape_ = 1;
        } else if (escape_ == 1) {
          escape_ = c == '[' ? 2 : 0;
        } else if (escape_ == 2) {
          escape_ = 0;
          if (c >= 'A' && c <= 'D') steer(kArrows[c - 'A'][0], kArrows[c - 'A'][1], tick);
        } else {
          letter(c, tick);
        }
      }
    }
    return true;
  }
  arena::Input input(std::uint64_t tick) const {
    arena::Input in{};
    if (tick < dir_until_) {
      in.dx = dx_;
      in.dy = dy_;
    }
    in.charge = tick < charge_until_ ? 1 : 0;
    return in;
  }

 private:
  static constexpr std::int8_t kArrows[4][2] = {{0, 1}, {0, -1}, {1, 0}, {-1, 0}};  // up, down, right, left
  void steer(std::int8_t dx, std::int8_t dy, std::uint64_t tick) {
    dx_ = dx;
    dy_ = dy;
    dir_until_ = tick + kHoldTicks;
  }
  // WASD (the arena's y grows upwards), space charges.
  void letter(unsigned char c, std::uint64_t tick) {
    switch (c | 0x20) {
      case 'w': steer(0, 1, tick); break;
      case 's': steer(0, -1, tick); break;
      case 'd': steer(1, 0, tick); break;
      case 'a': steer(-1, 0, tick); break;
      case ' ': charge_until_ = tick + kHoldTicks; break;
      default: break;
    }
  }
  int escape_ = 0;
  std::int8_t dx_ = 0, dy_ = 0;
  std::uint64_t dir_until_ = 0, charge_until_ = 0;
};

// The local player is a person: its input is the keyboard's state at the requested tick.
class PersonHost final : public rb::MatchHost {
 public:
  explicit PersonHost(const Keyboard& keys) : keys_(keys) {}
  void local_input(std::uint32_t, std::uint64_t tick, std::span<std::byte> out) override {
    const arena::Input in = keys_.input(tick);
    std::memcpy(out.data(), &in, std::min(out.size(), sizeof in));
  }
  void on_event(const rb::SessionEvent& e) override {
    if (e.kind == rb::SessionEventKind::Disconnected) note = "the other player left: their fighters stand still";
    if (e.kind == rb::SessionEventKind::Running) note = "running";
  }
  std::string note = "waiting for the other player...";

 private:
  const Keyboard& keys_;
};

// ---- drawing ---------------------------------------------------------------------------------
constexpr int kCols = 64, kRows = 24;

void draw(const ls::World& world, const rb::RollbackSession& session, std::uint32_t me, std::uint64_t end_tick,
          const std::string& note) {
  // lockstep: allow(static) the terminal picture, redrawn from the world every frame, never read by the sim
  static char grid[kRows][kCols + 1];
  // lockstep: allow(static) the terminal picture's colours, redrawn every frame, never read by the sim
  static std::uint8_t team[kRows][kCols];
  for (int r = 0; r < kRows; ++r) {
    std::memset(grid[r], ' ', kCols);
    grid[r][kCols] = '\0';
    std::memset(team[r], 0xFF, kCols);
  }
  // World [-40, 40]^2 onto the grid; y grows upwards on screen.
  const ls::fixed half = arena::kHalfSize, size = arena::kHalfSize * 2;
  const auto cell = [&](ls::fixed x, ls::fixed y, int& c, int& r) {
    c = static_cast<int>(std::clamp<std::int64_t>(ls::floor_int((x + half) * ls::fixed(kCols - 1) / size), 0, kCols - 1));
    r = static_cast<int>(std::clamp<std::int64_t>(ls::floor_int((half - y) * ls::fixed(kRows - 1) / size), 0, kRows - 1));
  };
  // The ring, where fights happen: every cell whose centre lies inside it, dotted.
  for (int r = 0; r < kRows; ++r)
    for (int c = 0; c < kCols; ++c) {
      const ls::fixed x = ls::fixed(c) * size / ls::fixed(kCols - 1) - half;
      const ls::fixed y = half - ls::fixed(r) * size / ls::fixed(kRows - 1);
      if (x * x + y * y < arena::kRingRadius * arena::kRingRadius) grid[r][c] = '.';
    }
  (void)world.each<arena::Position, arena::Fighter>([&](ls::Entity, const arena::Position& p, const arena::Fighter& f) {
    int c, r;
    cell(p.p.x, p.p.y, c, r);
    grid[r][c] = f.hp > 0 ? 'o' : 'x';
    team[r][c] = static_cast<std::uint8_t>(f.team);
  }, ls::Read{}, ls::Read{});
  const arena::Controls* ctl = world.readResource<arena::Controls>();
  const arena::Score* score = world.readResource<arena::Score>();
  for (std::uint32_t t = 0; ctl != nullptr && t < ctl->players && t < arena::kMaxPlayers; ++t) {
    int c, r;
    cell(ctl->rally[t].x, ctl->rally[t].y, c, r);
    grid[r][c] = 'X';
    team[r][c] = static_cast<std::uint8_t>(t);
  }
  std::string out = "\x1b[H";
  static const char* const colour[] = {"\x1b[31m", "\x1b[34m", "\x1b[32m", "\x1b[33m"};
  for (int r = 0; r < kRows; ++r) {
    out += '|';
    for (int c = 0; c < kCols; ++c) {
      if (team[r][c] != 0xFF) out += colour[team[r][c] % 4];
      out += grid[r][c];
      if (team[r][c] != 0xFF) out += "\x1b[0m";
    }
    out += "|\x1b[K\r\n";
  }
  char line[200];
  std::snprintf(line, sizeof line, "you: player %u (%s)  tick %llu/%llu  confirmed %llu  rollbacks %llu  %s\x1b[K\r\n", me,
                arena::team_colour(me), static_cast<unsigned long long>(session.current_tick()),
                static_cast<unsigned long long>(end_tick), static_cast<unsigned long long>(session.confirmed_tick()),
                static_cast<unsigned long long>(session.stats().rollbacks), note.c_str());
  out += line;
  out += (score != nullptr && ctl != nullptr ? arena::score_text(*score, ctl->players) : std::string("score (kills): -")) +
         "\x1b[K\r\n";
  out += "fights happen only inside the ring (the dots in the middle): lead your fighters there\x1b[K\r\n";
  out += "arrows/WASD move your rally point X, space charges, q leaves\x1b[K\r\n";
  std::fwrite(out.data(), 1, out.size(), stdout);
  std::fflush(stdout);
}

// ---- the match -------------------------------------------------------------------------------
int play(const Options& o) {
  arena::register_sims();
  const ls::replay::Sim* sim = ls::replay::find_sim("arena");
  ls::replay::SimConfig config;
  config.players = 2;
  config.units = o.units;
  config.seed = o.seed;
  ls::replay::Runner runner(*sim, config);
  if (!runner.status().ok()) return std::fprintf(stderr, "arena-play: %s\n", runner.status().message()), 2;

  rb::UdpTransportConfig uc;
  uc.bind = o.peers[o.id];
  uc.local_peer = o.id;
  uc.session_id = o.session_id;
  uc.peers = o.peers;
  uc.loopback_only = false;
  rb::UdpTransport udp;
  if (!udp.open(uc)) return std::fprintf(stderr, "arena-play: %s\n", udp.error().c_str()), 2;

  rb::SessionConfig sc = rb::SessionConfig::one_player_per_peer(2, 2, o.id);
  sc.input_delay = 2;
  sc.max_prediction = 8;
  sc.hash_interval = 16;
  sc.session_id = o.session_id;
  sc.sync_roundtrips = 5;
  // lockstep: allow(rand) this process's id for the handshake (a restart must differ), never simulation state
  sc.incarnation = static_cast<std::uint32_t>(std::random_device{}()) | 1u;
  sc.sync_timeout_us = 60000000;
  sc.disconnect_notify_start_us = 500000;
  sc.disconnect_timeout_us = 3000000;
  sc.max_frame_advantage = 3;
  std::string why;
  if (o.no_auth) sc.security = rb::WireSecurity::Unauthenticated;
  else if (!o.key_file.empty() && !rb::read_match_key_file(o.key_file, sc.match_key, why))
    return std::fprintf(stderr, "arena-play: %s\n", why.c_str()), 2;
  else if (o.key_file.empty()) sc.match_key = rb::insecure_test_key(o.session_id);  // demo only: no secret
  rb::RollbackSession session(runner, sc, &udp);
  if (!session.status().ok()) return std::fprintf(stderr, "arena-play: %s\n", session.status().message()), 2;

  ls::replay::ReplayRecorder recorder;
  std::unique_ptr<rb::RecorderSink> sink;
  if (!o.record.empty()) {
    const auto header = ls::replay::make_header(*sim, config, runner.world().storage(),
                                                ls::replay::kReplayHasHashes | ls::replay::kReplayHasComponentHashes);
    ls::replay::ReplayStatus st = recorder.open(o.record, header);
    if (st.ok()) st = recorder.initial(runner.hash());
    if (!st.ok()) return std::fprintf(stderr, "arena-play: %s\n", st.message.c_str()), 2;
    sink = std::make_unique<rb::RecorderSink>(recorder);
    session.set_confirmed_sink(sink.get());
  }

  rb::MatchLoopConfig mc;
  mc.end_tick = o.ticks;
  rb::MatchLoop loop(session, mc);
  rb::FramePacer pacer(sim->tick_hz());
  Keyboard keys;
  PersonHost host(keys);
  raw_terminal();
  int rc = 0;
  std::string failure;
  while (!loop.finished()) {
    if (g_stop != 0 || !keys.read(session.current_tick())) {
      failure = "left the match at tick " + std::to_string(session.current_tick());
      rc = 1;
      break;
    }
    if (const ls::Status st = loop.frame(pacer.now_us(), host); !st.ok()) {
      failure = st.message();
      rc = 2;
      break;
    }
    draw(runner.world(), session, o.id, o.ticks, host.note);
    pacer.wait_next_frame();
  }
  restore_terminal();
  if (sink != nullptr) {
    ls::replay::ReplayStatus st = sink->status();
    if (st.ok()) st = recorder.close();
    if (!st.ok()) return std::fprintf(stderr, "arena-play: %s\n", st.message.c_str()), 2;
  }
  if (loop.stats().desyncs != 0) {
    failure = "DESYNC: " + loop.first_desync();
    rc = 1;
  }
  std::printf("arena-play: player %u: %s, confirmed %llu/%llu ticks, final hash %016llx%s%s\n", o.id, rc == 0 ? "OK" : "FAILED",
              static_cast<unsigned long long>(session.confirmed_tick()), static_cast<unsigned long long>(o.ticks),
              static_cast<unsigned long long>(runner.hash().total), o.record.empty() ? "" : ", recorded to ",
              o.record.c_str());
  if (!failure.empty()) std::fprintf(stderr, "arena-play: %s\n", failure.c_str());
  // The verdict, last: the confirmed end of the match only (a match left early has none).
  const arena::Score* score = runner.world().readResource<arena::Score>();
  if (rc == 0 && score != nullptr)
    std::printf("arena-play: %s; %s\n", arena::result_text(*score, config.players).c_str(),
                arena::score_text(*score, config.players).c_str());
  return rc;
}

}  // namespace

int main(int argc, char** argv) { return play(parse(argc, argv)); }
