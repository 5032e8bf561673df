// viewer::Session natively (the same code the wasm module runs): its hashes are the Runner's,
// seeking works in both directions and through checkpoints, bad bytes fail with the offset.
#include <lockstep/fixtures/fixtures.h>
#include <lockstep/inspect/svg.h>
#include <lockstep/replay/replay_file.h>
#include <lockstep/hash/snapshot_file.h>
#include <lockstep/replay/runner.h>
#include <lockstep/store/snapshot.h>
#include <lockstep/inspect/bundle.h>
#include <lockstep/inspect/diff.h>
#include <lockstep/hash/state_hash.h>
#include <lockstep/viewer/page.h>
#include <lockstep/viewer/session.h>
#include <lockstep/math/fixed.h>
#include <lockstep/world.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

// An orbit-like game: bodies keep x and y as two separate scalar fixed fields (no vec2), with
// a radius and an owner — what a game outside the fixtures declares in its DrawHint.
namespace orbit_test {
using lockstep::fixed;
struct Body {
  fixed x, y, r;
  std::int32_t owner;
  std::uint32_t reserved;
};
LOCKSTEP_COMPONENT(Body, x, y, r, owner, reserved);
struct Tag {
  std::uint32_t kind;
};
LOCKSTEP_COMPONENT(Tag, kind);
struct Input {
  std::uint32_t unused;
};
LOCKSTEP_COMPONENT(Input, unused);

class NoBot final : public lockstep::replay::Bot {
 public:
  void generate(std::uint64_t, const lockstep::World&, std::span<std::byte> out) noexcept override {
    for (std::byte& b : out) b = std::byte{0};
  }
};

class OrbitSim : public lockstep::replay::Sim {
 public:
  explicit OrbitSim(const char* name, bool hint) : name_(name), hint_(hint) {}
  std::string_view name() const noexcept override { return name_; }
  std::uint32_t version() const noexcept override { return 1; }
  const lockstep::TypeDescriptor& input_type() const noexcept override { return lockstep::describe<Input>(); }
  lockstep::WorldConfig world_config(const lockstep::replay::SimConfig&) const noexcept override {
    lockstep::WorldConfig wc;
    wc.max_entities = 16;
    wc.max_components = 4;
    wc.max_resources = 2;
    wc.max_archetypes = 4;
    wc.row_bytes = 4096;
    wc.resource_bytes = 256;
    wc.command_capacity = 16;
    wc.command_bytes = 1024;
    return wc;
  }
  lockstep::Status setup(lockstep::World& w, lockstep::replay::SystemList&) const noexcept override {
    lockstep::Status s = w.registerComponent<Body>();
    if (s.ok()) s = w.registerComponent<Tag>();
    return s;
  }
  // Three bodies at (i, -2i) with radius i/2 + 1, owners 0, 1, 0; and one Tag-only entity
  // (nothing to draw: it is listed).
  lockstep::Status init(lockstep::World& w, const lockstep::replay::SimConfig&) const noexcept override {
    for (std::int32_t i = 0; i < 3; ++i) {
      lockstep::Entity e;
      if (auto s = w.tryCreate(e); !s.ok()) return s;
      const Body b{fixed(i), fixed(-2 * i), fixed(i) / fixed(2) + fixed(1), i % 2, 0};
      if (auto s = w.addComponent(e, b); !s.ok()) return s;
    }
    lockstep::Entity e;
    if (auto s = w.tryCreate(e); !s.ok()) return s;
    return w.addComponent(e, Tag{9});
  }
  void apply_inputs(lockstep::World&, std::span<const std::byte>) const noexcept override {}
  lockstep::replay::DrawHint draw_hint() const noexcept override {
    lockstep::replay::DrawHint h;
    if (hint_) {
      h.x = "Body.x";
      h.y = "Body.y";
      h.radius = "Body.r";
      h.team = "Body.owner";
      h.label = "Body.owner";
    }
    return h;
  }
  std::unique_ptr<lockstep::replay::Bot> make_bot(const lockstep::replay::SimConfig&, std::uint64_t,
                                                  std::uint32_t) const override {
    return std::make_unique<NoBot>();
  }

 private:
  const char* name_;
  bool hint_;
};
}  // namespace orbit_test

namespace {

std::vector<std::byte> read_all(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::vector<char> c((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  std::vector<std::byte> out(c.size());
  for (std::size_t i = 0; i < c.size(); ++i) out[i] = static_cast<std::byte>(c[i]);
  return out;
}

std::string hex16(std::uint64_t v) {
  char buf[20];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
  return buf;
}

// The "total" of the first side's hash in a frame answer.
std::string frame_total(const std::string& frame) {
  const std::string key = "\"hash\":{\"tick\":";
  const auto h = frame.find(key);
  if (h == std::string::npos) return "";
  const auto t = frame.find("\"total\":\"", h);
  return t == std::string::npos ? "" : frame.substr(t + 9, 16);
}

class ViewerSession : public ::testing::Test {
 protected:
  void SetUp() override {
    lockstep::fixtures::register_builtin_sims();
    lockstep::inspect::mark_position("Position", "p");
  }
};

TEST_F(ViewerSession, ReplayHashesAreTheRunnersAtEveryTickSeekedToInAnyOrder) {
  const std::string path = std::string(LOCKSTEP_SOURCE_DIR) + "/fixtures/skirmish/skirmish.replay";
  const std::vector<std::byte> bytes = read_all(path);
  lockstep::replay::Replay r;
  ASSERT_TRUE(lockstep::replay::decode_replay(bytes, r, path).ok());
  const lockstep::replay::Sim* sim = lockstep::replay::find_sim(r.header.sim_name);
  ASSERT_NE(sim, nullptr);
  // Reference: a Runner stepping the recording from tick 0.
  std::vector<std::string> want;
  lockstep::replay::Runner runner(*sim, r.header.config);
  ASSERT_TRUE(runner.status().ok());
  want.push_back(hex16(runner.hash().total));
  std::vector<std::byte> frame(r.header.frame_bytes());
  for (std::uint64_t t = 0; t < r.frame_count(); ++t) {
    lockstep::replay::Runner::copy_to_host(sim->input_type(), r.frame(t), frame);
    ASSERT_TRUE(runner.step(frame).ok());
    want.push_back(hex16(runner.hash().total));
  }
  ASSERT_GE(want.size(), 601u);

  lockstep::viewer::Session s;
  const std::string info = s.load(bytes, "skirmish.replay");
  ASSERT_EQ(info.rfind("{\"ok\":true", 0), 0u) << info;
  EXPECT_NE(info.find("\"kind\":\"replay\""), std::string::npos) << info;
  EXPECT_NE(info.find("\"last_tick\":" + std::to_string(r.frame_count())), std::string::npos) << info;
  // Playback at the sim's own rate (Sim::tick_hz): skirmish is an RTS at 30 ticks/s.
  EXPECT_NE(info.find("\"tick_hz\":30,"), std::string::npos) << info;
  for (std::uint64_t t : {std::uint64_t{0}, std::uint64_t{600}, std::uint64_t{300}, std::uint64_t{301}, std::uint64_t{0},
                          r.frame_count()}) {
    const std::string f = s.seek(t);
    ASSERT_EQ(f.rfind("{\"ok\":true", 0), 0u) << f.substr(0, 300);
    EXPECT_EQ(frame_total(f), want[t]) << "tick " << t;
    EXPECT_NE(f.find("\"tick\":" + std::to_string(t) + ","), std::string::npos);
    // The recording's own hash is shown beside the computed one and agrees.
    if (t < r.hashes.size() && r.hashes[t].tick == t) {
      EXPECT_NE(f.find("\"recorded\":\"" + want[t] + "\""), std::string::npos) << "tick " << t;
    }
  }
  EXPECT_TRUE(s.error().empty());
  const std::string beyond = s.seek(r.frame_count() + 1);
  EXPECT_EQ(beyond.rfind("{\"ok\":false", 0), 0u);
  EXPECT_NE(s.error().find("expected 0.." + std::to_string(r.frame_count())), std::string::npos) << s.error();
}

// The playback rate is the sim's (Sim::tick_hz), not a constant of the page.
TEST_F(ViewerSession, PlaybackRateIsTheSims) {
  const std::string path = std::string(LOCKSTEP_SOURCE_DIR) + "/fixtures/duel/duel.replay";
  lockstep::viewer::Session s;
  const std::string info = s.load(read_all(path), "duel.replay");
  ASSERT_EQ(info.rfind("{\"ok\":true", 0), 0u) << info;
  EXPECT_NE(info.find("\"tick_hz\":60,"), std::string::npos) << info;
  EXPECT_EQ(lockstep::replay::find_sim("skirmish")->tick_hz(), 30u);
}

// Seeking loads the last checkpoint at or before the tick. Shown with a checkpoint at tick
// 300 that holds ANOTHER match's tick-300 state (seed 2): ticks after it follow that state,
// ticks before it are the recording's.
TEST_F(ViewerSession, SeekStartsFromTheLastCheckpointAtOrBeforeTheTick) {
  const std::string path = std::string(LOCKSTEP_SOURCE_DIR) + "/fixtures/skirmish/skirmish.replay";
  lockstep::replay::Replay r;
  ASSERT_TRUE(lockstep::replay::decode_replay(read_all(path), r, path).ok());
  const lockstep::replay::Sim* sim = lockstep::replay::find_sim(r.header.sim_name);
  ASSERT_NE(sim, nullptr);
  auto run_to = [&](const lockstep::replay::SimConfig& config, std::uint64_t from_state_of_tick, std::uint64_t tick,
                    std::vector<std::byte>* snapshot_at_from) {
    lockstep::replay::Runner runner(*sim, config);
    std::vector<std::byte> frame(r.header.frame_bytes());
    for (std::uint64_t t = 0; t < tick; ++t) {
      if (t == from_state_of_tick && snapshot_at_from != nullptr) {
        EXPECT_TRUE(lockstep::encode_snapshot(runner.world().storage(), *snapshot_at_from).ok());
      }
      lockstep::replay::Runner::copy_to_host(sim->input_type(), r.frame(t), frame);
      EXPECT_TRUE(runner.step(frame).ok());
    }
    return hex16(runner.hash().total);
  };
  lockstep::replay::SimConfig other = r.header.config;
  other.seed = r.header.config.seed + 1;
  lockstep::replay::Checkpoint cp;
  cp.tick = 300;
  (void)run_to(other, 300, 301, &cp.snapshot);
  ASSERT_FALSE(cp.snapshot.empty());
  // Reference for tick 450 from that checkpoint: the other match's state at 300, then the
  // recording's frames 300..449.
  std::string from_checkpoint;
  {
    lockstep::replay::Runner runner(*sim, r.header.config);
    lockstep::Snapshot scratch(runner.world());
    ASSERT_TRUE(lockstep::load_snapshot_bytes(cp.snapshot, runner.world(), scratch, "cp").ok());
    std::vector<std::byte> frame(r.header.frame_bytes());
    for (std::uint64_t t = 300; t < 450; ++t) {
      lockstep::replay::Runner::copy_to_host(sim->input_type(), r.frame(t), frame);
      ASSERT_TRUE(runner.step(frame).ok());
    }
    from_checkpoint = hex16(runner.hash().total);
  }
  const std::string recorded_450 = run_to(r.header.config, 0, 450, nullptr);
  ASSERT_NE(from_checkpoint, recorded_450);
  r.header.flags |= lockstep::replay::kReplayHasCheckpoints;
  r.header.checkpoint_interval = 300;
  r.checkpoints = {cp};
  std::vector<std::byte> bytes;
  ASSERT_TRUE(lockstep::replay::encode_replay(r, bytes).ok());

  lockstep::viewer::Session s;
  const std::string info = s.load(bytes, "ckpt.replay");
  EXPECT_NE(info.find("\"checkpoints\":[300]"), std::string::npos) << info;
  EXPECT_EQ(frame_total(s.seek(450)), from_checkpoint);
  EXPECT_EQ(frame_total(s.seek(299)), run_to(r.header.config, 0, 299, nullptr));  // back, before it: from tick 0
  EXPECT_EQ(frame_total(s.seek(450)), from_checkpoint);
}

TEST_F(ViewerSession, EntitiesCarryMarkedPositionsTeamsAndNamedFields) {
  const std::vector<std::byte> bytes = read_all(std::string(LOCKSTEP_SOURCE_DIR) + "/fixtures/skirmish/skirmish.replay");
  lockstep::viewer::Session s;
  ASSERT_EQ(s.load(bytes, "skirmish.replay").rfind("{\"ok\":true", 0), 0u);
  const std::string f = s.seek(0);
  EXPECT_NE(f.find("\"position\":\"Position.p\""), std::string::npos);
  // Slot 0 is a unit of player 0 (Team.owner) at tick 0.
  const auto e0 = f.find("\"entities\":[[0,");
  ASSERT_NE(e0, std::string::npos) << f.substr(0, 400);
  const std::string row = f.substr(e0 + 12, f.find(']', e0 + 12) - e0 - 12);
  EXPECT_EQ(row.substr(row.rfind(',') + 1), "0") << row;
  const std::string e = s.entity(0, 0);
  EXPECT_NE(e.find("{\"name\":\"Team\",\"fields\":[{\"name\":\"owner\",\"value\":\"0\",\"differs\":false}"), std::string::npos) << e;
  EXPECT_NE(e.find("{\"name\":\"Position\",\"fields\":[{\"name\":\"p\""), std::string::npos) << e;
  EXPECT_EQ(s.entity(0, 1u << 30).rfind("{\"ok\":false", 0), 0u);
  EXPECT_EQ(s.entity(1, 0).rfind("{\"ok\":false", 0), 0u);
}

TEST_F(ViewerSession, BadBytesFailWithFileAndOffset) {
  std::vector<std::byte> bytes = read_all(std::string(LOCKSTEP_SOURCE_DIR) + "/fixtures/skirmish/skirmish.replay");
  lockstep::viewer::Session s;
  const std::vector<std::byte> junk(16, std::byte{'x'});
  EXPECT_EQ(s.load(junk, "junk.bin").rfind("{\"ok\":false", 0), 0u);
  EXPECT_EQ(s.error(), "junk.bin: byte 0: expected a replay (LSREPLAY or JSON), a desync bundle (LSBUNDLE) or a snapshot "
                       "file (LSSNAP)");
  bytes[bytes.size() / 2] ^= std::byte{0x55};
  EXPECT_EQ(s.load(bytes, "flipped.replay").rfind("{\"ok\":false", 0), 0u);
  EXPECT_NE(s.error().find("flipped.replay: byte "), std::string::npos) << s.error();
  EXPECT_EQ(s.seek(0).rfind("{\"ok\":false", 0), 0u);  // nothing loaded after a failed load
}

// ---- drawing hints (replay::DrawHint) ----------------------------------------------------

// A side's "entities" array text in a frame answer (side 0).
std::string entities_of(const std::string& frame) {
  const auto at = frame.find("\"entities\":[");
  if (at == std::string::npos) return "";
  const auto end = frame.find("]],", at);
  return frame.substr(at + 12, end == std::string::npos ? std::string::npos : end - at - 12 + 1);
}

TEST_F(ViewerSession, TheSimsDrawHintDrawsEveryUnitWithTeamAndLabel) {
  const std::vector<std::byte> bytes = read_all(std::string(LOCKSTEP_SOURCE_DIR) + "/fixtures/skirmish/skirmish.replay");
  lockstep::viewer::Session s;
  const std::string info = s.load(bytes, "skirmish.replay");
  EXPECT_NE(info.find(",\"draw\":{\"position\":\"Position.p\",\"team\":\"Team.owner\",\"label\":\"Health.hp\",\"from\":\"sim\"}}"),
            std::string::npos)
      << info;
  const std::string f = s.seek(0);
  EXPECT_NE(f.find("\"position\":\"Position.p\",\"live\":2000,"), std::string::npos) << f.substr(0, 600);
  EXPECT_EQ(f.find("null,null"), std::string::npos);  // every unit has a position
  EXPECT_NE(f.find("\"radii\":null,\"labels\":[\""), std::string::npos) << f.substr(f.find("\"radii\""), 80);
}

TEST_F(ViewerSession, SeparateScalarFieldsRadiusAndOwnerFromTheHintOfASnapshotsSim) {
  static const orbit_test::OrbitSim orbit("orbit-test", true);
  lockstep::replay::register_sim(orbit);
  lockstep::replay::Runner r(orbit, {});
  ASSERT_TRUE(r.status().ok()) << r.status().message();
  const std::vector<std::byte> snap = lockstep::inspect::encode_state(lockstep::inspect::capture(r.world().storage()));
  lockstep::viewer::Session s;
  const std::string info = s.load(snap, "orbit.lssnap");
  ASSERT_EQ(info.rfind("{\"ok\":true", 0), 0u) << info;
  EXPECT_NE(info.find("\"draw\":{\"x\":\"Body.x\",\"y\":\"Body.y\",\"radius\":\"Body.r\",\"team\":\"Body.owner\","
                      "\"label\":\"Body.owner\",\"from\":\"sim orbit-test\"}"),
            std::string::npos)
      << info;
  const std::string f = s.seek(0);
  // (i, -2i) raw 48.16; radius i/2 + 1; owner i % 2; the Tag-only entity (slot 3) is listed.
  EXPECT_EQ(entities_of(f), "[0,1,1,0,0,0],[1,1,1,65536,-131072,1],[2,1,1,131072,-262144,0],[3,1,2,null,null,-1]") << f;
  EXPECT_NE(f.find("\"position\":\"Body.x, Body.y\""), std::string::npos) << f;
  EXPECT_NE(f.find("\"radii\":[65536,98304,131072,null],\"labels\":[\"0\",\"1\",\"0\",null]"), std::string::npos) << f;
  // The fields of the listed entity by name.
  EXPECT_NE(s.entity(0, 3).find("{\"name\":\"Tag\",\"fields\":[{\"name\":\"kind\",\"value\":\"9\",\"differs\":false}]}"),
            std::string::npos);
}

TEST_F(ViewerSession, WithoutAHintEntitiesAreListedNotDrawn) {
  static const orbit_test::OrbitSim plain("orbit-plain", false);
  lockstep::replay::Runner r(plain, {});
  ASSERT_TRUE(r.status().ok());
  lockstep::inspect::Bundle b;
  b.source = "test";
  lockstep::inspect::set_sim(b, plain, {});
  const lockstep::inspect::State st = lockstep::inspect::capture(r.world().storage());
  b.facts = lockstep::inspect::build_facts(&plain, &st);
  for (const auto& [k, v] : b.facts) EXPECT_NE(k.rfind("draw ", 0), 0u) << k;  // nothing declared, nothing carried
  b.sides.push_back({"a", true, st, lockstep::inspect::breakdown(lockstep::hash_world(r.world()))});
  b.sides.push_back({"b", true, st, lockstep::inspect::breakdown(lockstep::hash_world(r.world()))});
  lockstep::viewer::Session s;
  const std::string info = s.load(lockstep::inspect::encode_bundle(b), "plain.lsbundle");
  ASSERT_EQ(info.rfind("{\"ok\":true", 0), 0u) << info;
  EXPECT_NE(info.find("\"draw\":null"), std::string::npos) << info;
  const std::string f = s.seek(0);
  EXPECT_EQ(entities_of(f), "[0,1,1,null,null,-1],[1,1,1,null,null,-1],[2,1,1,null,null,-1],[3,1,2,null,null,-1]") << f;
  EXPECT_NE(f.find("\"position\":null"), std::string::npos);
}

// A bundle carries the sim's hint as facts: a tool without the sim (here: never registered)
// still draws it and rings exactly the entities the diff names.
TEST_F(ViewerSession, BundlesCarryTheHintAndRingTheDivergedEntitiesOfAnyGame) {
  static const orbit_test::OrbitSim unregistered("orbit-elsewhere", true);
  lockstep::replay::Runner ra(unregistered, {}), rb(unregistered, {});
  ASSERT_TRUE(ra.status().ok() && rb.status().ok());
  (void)rb.world().each<orbit_test::Body>(
      [](lockstep::Entity e, orbit_test::Body& body) {
        if (e.slot == 1) body.x = body.x + lockstep::fixed(3);
      },
      lockstep::Write{});
  lockstep::inspect::Bundle b;
  b.source = "test";
  lockstep::inspect::set_sim(b, unregistered, {});
  const lockstep::inspect::State sa = lockstep::inspect::capture(ra.world().storage());
  const lockstep::inspect::State sb = lockstep::inspect::capture(rb.world().storage());
  b.facts = lockstep::inspect::build_facts(&unregistered, &sa);
  b.sides.push_back({"A", true, sa, lockstep::inspect::breakdown(lockstep::hash_world(ra.world()))});
  b.sides.push_back({"B", true, sb, lockstep::inspect::breakdown(lockstep::hash_world(rb.world()))});
  ASSERT_EQ(lockstep::replay::find_sim("orbit-elsewhere"), nullptr);
  lockstep::viewer::Session s;
  const std::string info = s.load(lockstep::inspect::encode_bundle(b), "orbit.lsbundle");
  EXPECT_NE(info.find("\"from\":\"bundle\""), std::string::npos) << info;
  const std::string f = s.seek(0);
  EXPECT_NE(f.find("\"diverged\":[1],"), std::string::npos) << f;
  // Side B draws slot 1 where B has it: x = 1 + 3.
  EXPECT_NE(f.find("[1,1,1,262144,-131072,1]"), std::string::npos) << f;
  EXPECT_NE(s.entity(1, 1).find("{\"name\":\"x\",\"value\":\"4\",\"differs\":true}"), std::string::npos) << s.entity(1, 1);
}

TEST_F(ViewerSession, AHintThatDoesNotFitIsReportedAndTheEntitiesListed) {
  lockstep::inspect::Bundle b;
  static const orbit_test::OrbitSim plain("orbit-plain2", false);
  lockstep::replay::Runner r(plain, {});
  ASSERT_TRUE(r.status().ok());
  lockstep::inspect::set_sim(b, plain, {});
  const lockstep::inspect::State st = lockstep::inspect::capture(r.world().storage());
  b.facts = {{"draw position", "Body.owner"}};  // an integer, not a vec2
  b.sides.push_back({"a", true, st, lockstep::inspect::breakdown(lockstep::hash_world(r.world()))});
  lockstep::viewer::Session s;
  ASSERT_EQ(s.load(lockstep::inspect::encode_bundle(b), "bad-hint.lsbundle").rfind("{\"ok\":true", 0), 0u);
  const std::string f = s.seek(0);
  EXPECT_NE(f.find("\"position\":null,\"draw_problem\":\"draw hint position = Body.owner: expected a fixed-point "
                   "field with 2 or 3 elements (vec2/vec3)\""),
            std::string::npos)
      << f;
}

// ---- the self-contained page without emscripten (page.h) ---------------------------------

TEST_F(ViewerSession, EmbeddedFramesAreEveryTickUpToTheLimitThenKeyframes) {
  const std::vector<std::byte> bytes = read_all(std::string(LOCKSTEP_SOURCE_DIR) + "/fixtures/duel/duel.replay");
  lockstep::viewer::Session s;
  const std::string info = s.load(bytes, "duel.replay");
  ASSERT_EQ(info.rfind("{\"ok\":true", 0), 0u);
  lockstep::replay::Replay rec;
  ASSERT_TRUE(lockstep::replay::decode_replay(bytes, rec, "duel.replay").ok());
  const std::uint64_t last = rec.frame_count();
  lockstep::viewer::Embedded all, keys;
  std::string error;
  ASSERT_TRUE(lockstep::viewer::embed_frames(s, info, {}, all, error)) << error;
  EXPECT_EQ(all.ticks, last + 1);
  EXPECT_EQ(all.stride, 1u);
  EXPECT_EQ(all.note, "");
  // A limit of a quarter of that: keyframes, a power-of-two stride, the last tick kept.
  lockstep::viewer::EmbedLimits small;
  small.max_bytes = all.bytes / 4;
  ASSERT_TRUE(lockstep::viewer::embed_frames(s, info, small, keys, error)) << error;
  EXPECT_LE(keys.bytes, small.max_bytes);
  EXPECT_GE(keys.stride, 4u);
  EXPECT_EQ(keys.stride & (keys.stride - 1), 0u);
  EXPECT_EQ(keys.ticks, last / keys.stride + 1 + (last % keys.stride != 0 ? 1 : 0));
  EXPECT_NE(keys.note.find("keyframes only: every " + std::to_string(keys.stride) + "th tick"), std::string::npos) << keys.note;
  const std::string ends = "other ticks show the keyframe before them. A served page shows every tick.";
  EXPECT_EQ(keys.note.substr(keys.note.size() - std::min(keys.note.size(), ends.size())), ends);
  EXPECT_FALSE(keys.over_limit);
  // The caller words how its reader gets every tick (the tool names its command).
  lockstep::viewer::EmbedLimits worded = small;
  worded.every_tick = "Every tick: mytool show FILE --all";
  lockstep::viewer::Embedded keys_worded;
  ASSERT_TRUE(lockstep::viewer::embed_frames(s, info, worded, keys_worded, error)) << error;
  EXPECT_EQ(keys_worded.note, keys.note.substr(0, keys.note.size() - std::string("A served page shows every tick.").size()) +
                                  "Every tick: mytool show FILE --all");
  EXPECT_NE(keys.data_json.find(",\"ticks\":[0," + std::to_string(keys.stride) + ","), std::string::npos);
  EXPECT_NE(keys.data_json.find("," + std::to_string(last) + "],\"stride\":"), std::string::npos);
  // The embedded frame of a tick is the seek answer of that tick, byte for byte.
  const std::string f = s.seek(keys.stride);
  EXPECT_NE(keys.data_json.find(f), std::string::npos);
  // Too small even for two frames: an error that says what to do.
  lockstep::viewer::EmbedLimits tiny;
  tiny.max_bytes = 100;
  EXPECT_FALSE(lockstep::viewer::embed_frames(s, info, tiny, keys, error));
  EXPECT_EQ(error, "the first and last frames alone take more than 100 bytes, the limit of an embedded page; a served page "
                   "has none");
  EXPECT_TRUE(keys.over_limit);
}

TEST_F(ViewerSession, NativePageKeepsDataInsideItsScriptElement) {
  const std::string page = lockstep::viewer::native_page("{\"mode\":\"embedded\",\"x\":\"</script><b>\"}",
                                                         lockstep::viewer::PageMode::Embedded);
  EXPECT_NE(page.find("{\"mode\":\"embedded\",\"x\":\"\\u003c/script>\\u003cb>\"}"), std::string::npos);
  EXPECT_EQ(page.find("@LOCKSTEP_DATA@"), std::string::npos);
  EXPECT_NE(page.find("connect-src data:"), std::string::npos);  // embedded: no fetch allowed
  const std::string served = lockstep::viewer::native_page("{\"mode\":\"http\"}", lockstep::viewer::PageMode::Served);
  EXPECT_NE(served.find("connect-src 'self'"), std::string::npos);
  // The page's own scripts: the data, the (absent) module, the app — three elements, closed once each.
  std::size_t closes = 0;
  for (std::size_t at = 0; (at = page.find("</script>", at)) != std::string::npos; ++at) ++closes;
  EXPECT_EQ(closes, 3u);
}

// `view --serve` indexes a replay first (in-memory checkpoints): every seek after it answers
// exactly what stepping from tick 0 answers — frame and every field of every entity.
TEST_F(ViewerSession, IndexedSeeksEqualSteppingFromTickZero) {
  const std::vector<std::byte> bytes = read_all(std::string(LOCKSTEP_SOURCE_DIR) + "/fixtures/skirmish/skirmish.replay");
  lockstep::viewer::Session indexed, plain;
  const std::string info = indexed.load(bytes, "skirmish.replay");
  ASSERT_EQ(info.rfind("{\"ok\":true", 0), 0u);
  ASSERT_EQ(plain.load(bytes, "skirmish.replay"), info);
  EXPECT_EQ(indexed.index(std::uint64_t{64} << 20), "");
  for (const std::uint64_t t : {600u, 17u, 450u, 0u, 599u, 33u}) {
    const std::string a = indexed.seek(t);
    const std::string b = plain.seek(t);
    EXPECT_EQ(a, b) << "tick " << t;
    EXPECT_EQ(indexed.details(), plain.details()) << "tick " << t;
  }
  // Budget for one snapshot only: still correct (fewer checkpoints).
  lockstep::viewer::Session tight;
  ASSERT_EQ(tight.load(bytes, "skirmish.replay"), info);
  EXPECT_EQ(tight.index(1), "");
  EXPECT_EQ(frame_total(tight.seek(600)), frame_total(plain.seek(600)));
}

}  // namespace
