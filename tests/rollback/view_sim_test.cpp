// A sim whose systems act on view deltas (view.h, docs/query.md "Views") and whose spawns
// get a bonus from an OnAdd observer (observers.h): a "wounded" view
// (VUnit.hp < 8) and a view of every unit. The first system of every tick reads the lists
// of the update beginTick() made — what the previous tick changed — heals the newly wounded
// through the command buffer, scars them, and keeps tallies in a resource; so the hashed
// state depends on the view state, and rollback must restore it exactly. Synctest at check
// distances 1 and 8 passes; the tallies of a plain run equal a naive recomputation of the
// membership from the world's state after every tick.
#include "rollback/rollback_support.h"

#include <lockstep/hash/snapshot_file.h>
#include <lockstep/hash/world_snapshot.h>
#include <lockstep/inspect/diff.h>
#include <lockstep/inspect/replay_state.h>
#include <lockstep/inspect/state.h>
#include <lockstep/store/observers.h>
#include <lockstep/replay/replay_file.h>
#include <lockstep/replay/resume.h>
#include <lockstep/rollback/synctest.h>
#include <lockstep/store/system_access.h>
#include <lockstep/query/view.h>
#include <lockstep/query/view_state.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <utility>
#include <vector>

namespace {

using namespace rollback_test;

struct VInput {
  std::int32_t strike;  // 0..6
};
LOCKSTEP_COMPONENT(VInput, strike);
struct VFrame {
  std::int32_t strike[2];
};
LOCKSTEP_COMPONENT(VFrame, strike);
struct VUnit {
  std::int32_t hp;
  std::uint32_t owner;
};
LOCKSTEP_COMPONENT(VUnit, hp, owner);
struct VScar {
  std::uint32_t count;
};
LOCKSTEP_COMPONENT(VScar, count);
struct VTally {
  std::uint64_t added, removed, modified, members, removed_handles;
};
LOCKSTEP_COMPONENT(VTally, added, removed, modified, members, removed_handles);

// Registration order makes the ids (checked in setup).
constexpr ViewId kWounded{0};
constexpr ViewId kUnits{1};
constexpr std::int32_t kWoundedBelow = 8;

void react_system(World& w) {
  VTally& t = *w.resource<VTally>();
  (void)eachDelta(w, kWounded, ViewList::Added, [&](Entity e) {
    ++t.added;
    if (VScar* s = w.getMutable<VScar>(e)) ++s->count;  // VScar is not the view's: writable
    const VUnit* u = w.get<VUnit>(e);
    (void)w.commands().addComponent(e, VUnit{u->hp + 3 + static_cast<std::int32_t>(e.slot % 2), u->owner});
  });
  (void)eachDelta(w, kWounded, ViewList::Removed, [&](Entity e) {
    ++t.removed;
    t.removed_handles += std::uint64_t{e.slot} * 1000u + e.generation;
  });
  ViewDeltas d;
  if (viewDeltas(w, kUnits, d).ok()) {
    t.modified += d.modified.size();
    for (const Entity& e : d.modified) t.removed_handles ^= e.slot;  // which entities, not just how many
  }
  if (viewDeltas(w, kWounded, d).ok()) t.members += d.members;
}
void strike_system(World& w) {
  const VFrame& f = *w.readResource<VFrame>();
  (void)w.each<VUnit>([&](Entity e, VUnit& u) {
    u.hp -= f.strike[(u.owner + 1) & 1] * static_cast<std::int32_t>(e.slot % 3 == 0 ? 1 : 0);
    if (u.hp <= 0) (void)w.commands().destroy(e);
  }, Write{});
}
void poke_system(World& w) {
  // Single-entity writes: some change the value, some write it back unchanged.
  (void)w.each<>([&](Entity e) {
    if (e.slot % 5 != w.tick() % 5) return;
    if (VUnit* u = w.getMutable<VUnit>(e)) u->hp += (e.slot % 2 == 0) ? 0 : -1;
  });
}
// Observer: a spawned unit gets a bonus written in place (a watched write from an observer,
// fired at the flush) — so views and observers run together under synctest.
void on_unit_added(World& w, Entity e) {
  if (VUnit* u = w.getMutable<VUnit>(e)) u->hp += static_cast<std::int32_t>(e.slot % 3);
}
void spawn_system(World& w) {
  if (w.tick() % 3 != 0) return;
  CommandBuffer& cmd = w.commands();
  const Entity e = cmd.create();
  (void)cmd.addComponent(e, VUnit{9, static_cast<std::uint32_t>(w.tick() / 3 % 2)});
  (void)cmd.addComponent(e, VScar{0});
}

class ViewSim final : public Sim {
 public:
  std::string_view name() const noexcept override { return "viewed"; }
  std::uint32_t version() const noexcept override { return 1; }
  const TypeDescriptor& input_type() const noexcept override { return describe<VInput>(); }
  WorldConfig world_config(const SimConfig&) const noexcept override {
    WorldConfig c;
    c.max_entities = 512;
    c.command_capacity = 512;
    return c;
  }
  Status setup(World& w, SystemList& systems) const noexcept override {
    Status s = w.registerComponent<VUnit>();
    if (s.ok()) s = w.registerComponent<VScar>();
    if (s.ok()) s = w.registerResource<VFrame>(VFrame{});
    if (s.ok()) s = w.registerResource<VTally>(VTally{});
    ViewId wounded, units;
    CachedQuery<term::read<VUnit>> wounded_q, units_q;  // only carry the terms into registerView
    if (s.ok()) s = registerView(w, wounded_q, field(&VUnit::hp) < kWoundedBelow, wounded);
    if (s.ok()) s = registerView(w, units_q, units);
    AccessSet unit_writer;
    if (s.ok()) s = access_of(w, Reads<>{}, Writes<VUnit>{}, "observe.unit_added", unit_writer);
    if (s.ok()) s = w.observe<VUnit>(ObserverEvent::OnAdd, on_unit_added, unit_writer);
    if (!s.ok()) return s;
    if (wounded.index != kWounded.index || units.index != kUnits.index)
      return {ErrorCode::Internal, "view ids differ from the registration order"};
    using replay::make_system;
    s = systems.add(make_system("react", react_system, Reads<>{}, Writes<VUnit, VScar, VTally, Commands>{}));
    if (s.ok()) s = systems.add(make_system("strike", strike_system, Reads<VFrame>{}, Writes<VUnit, Commands>{}));
    if (s.ok()) s = systems.add(make_system("poke", poke_system, Reads<>{}, Writes<VUnit>{}));
    if (s.ok()) s = systems.add(make_system("spawn", spawn_system, Reads<>{}, Writes<VUnit, VScar, Commands>{}));
    return s;
  }
  Status init(World& w, const SimConfig&) const noexcept override {
    for (std::uint32_t i = 0; i < 24; ++i) {
      const Entity e = w.create();
      if (Status s = w.addComponent(e, VUnit{9 + static_cast<std::int32_t>(i % 7), i & 1u}); !s.ok()) return s;
      if (Status s = w.addComponent(e, VScar{0}); !s.ok()) return s;
    }
    return Status::Ok();
  }
  void apply_inputs(World& w, std::span<const std::byte> inputs) const noexcept override {
    VFrame& f = *w.resource<VFrame>();
    for (std::size_t p = 0; p < 2; ++p) {
      VInput in;
      std::memcpy(&in, inputs.data() + p * sizeof in, sizeof in);
      f.strike[p] = in.strike;
    }
  }
  std::unique_ptr<Bot> make_bot(const SimConfig&, std::uint64_t seed, std::uint32_t player) const override {
    return std::make_unique<LcgBot<VInput>>(seed * 7 + player);
  }
};

SimConfig two_players() {
  SimConfig c;
  c.players = 2;
  return c;
}

using Members = std::map<std::uint32_t, std::pair<std::uint32_t, std::int32_t>>;  // slot -> (generation, hp)

Members wounded_now(const World& w) {
  Members m;
  (void)w.each<VUnit>([&](Entity e, const VUnit& u) {
    if (u.hp < kWoundedBelow) m[e.slot] = {e.generation, u.hp};
  }, Read{});
  return m;
}
Members units_now(const World& w) {
  Members m;
  (void)w.each<VUnit>([&](Entity e, const VUnit& u) { m[e.slot] = {e.generation, u.hp ^ static_cast<std::int32_t>(u.owner << 16)}; }, Read{});
  return m;
}

}  // namespace

TEST(ViewSim, TalliesEqualANaiveRecomputation) {
  const ViewSim sim;
  Runner a(sim, two_players());
  ASSERT_TRUE(a.status().ok()) << a.status().message();
  std::vector<std::byte> frame(a.frame_bytes());
  std::unique_ptr<Bot> p0 = sim.make_bot(two_players(), 5, 0), p1 = sim.make_bot(two_players(), 5, 1);
  // The update at the start of tick t compares the state after tick t-1 with the state
  // after tick t-2 (the state before the first update is "no members").
  Members prev_w, prev_u;
  Members cur_w = wounded_now(a.world()), cur_u = units_now(a.world());
  VTally expect{};
  const std::uint64_t ticks = 150;
  for (std::uint64_t t = 0; t < ticks; ++t) {
    // What react will see at tick t: the diff prev -> cur.
    for (const auto& [slot, m] : cur_w) {
      const auto it = prev_w.find(slot);
      if (it == prev_w.end() || it->second.first != m.first) ++expect.added;
    }
    for (const auto& [slot, m] : prev_w) {
      const auto it = cur_w.find(slot);
      if (it == cur_w.end() || it->second.first != m.first) {
        ++expect.removed;
        expect.removed_handles += std::uint64_t{slot} * 1000u + m.first;
      }
    }
    for (const auto& [slot, m] : cur_u) {
      const auto it = prev_u.find(slot);
      if (it != prev_u.end() && it->second.first == m.first && it->second.second != m.second) {
        ++expect.modified;
        expect.removed_handles ^= slot;
      }
    }
    expect.members += cur_w.size();
    p0->generate(t, a.world(), std::span<std::byte>(frame.data(), sizeof(VInput)));
    p1->generate(t, a.world(), std::span<std::byte>(frame.data() + sizeof(VInput), sizeof(VInput)));
    ASSERT_TRUE(a.step(frame).ok()) << "tick " << t;
    prev_w = std::move(cur_w);
    prev_u = std::move(cur_u);
    cur_w = wounded_now(a.world());
    cur_u = units_now(a.world());
  }
  const VTally& got = *std::as_const(a.world()).resource<VTally>();
  EXPECT_EQ(got.added, expect.added);
  EXPECT_EQ(got.removed, expect.removed);
  EXPECT_EQ(got.modified, expect.modified);
  EXPECT_EQ(got.members, expect.members);
  EXPECT_EQ(got.removed_handles, expect.removed_handles);
  // Non-trivial: units got wounded, healed out of the view and died.
  EXPECT_GT(got.added, 20u);
  EXPECT_GT(got.removed, 20u);
  EXPECT_GT(got.modified, 100u);
}

TEST(ViewSim, SynctestAtDistance8Passes) {
  const ViewSim sim;
  for (std::uint32_t d : {1u, 8u}) {
    const SyncTestResult r = synctest_bots(sim, two_players(), 3, 200 / kScale, d);
    ASSERT_TRUE(r.status.ok()) << r.status.message();
    EXPECT_TRUE(r.ok) << "distance " << d << " tick " << r.tick;
    EXPECT_EQ(r.ticks, 200 / kScale);
  }
}

namespace {

// A recording of the sim with a checkpoint at ticks 40 and 80 — format 2 (the World, with its
// views), or format 1 (its StorageView, as recorders before 0.3 wrote them); `a` ends as the
// uninterrupted run at `ticks`.
lockstep::replay::Replay record_with_checkpoints(const ViewSim& sim, Runner& a, std::uint64_t ticks, bool views = true) {
  lockstep::replay::Replay r;
  r.header = lockstep::replay::make_header(sim, two_players(), a.world().storage(), 0);
  std::vector<std::byte> frame(a.frame_bytes());
  std::unique_ptr<Bot> p0 = sim.make_bot(two_players(), 5, 0), p1 = sim.make_bot(two_players(), 5, 1);
  for (std::uint64_t t = 0; t < ticks; ++t) {
    if (t == 40 || t == 80) {
      lockstep::replay::Checkpoint cp{t, {}};
      EXPECT_TRUE((views ? lockstep::encode_world_snapshot(a.world(), cp.snapshot)
                         : lockstep::encode_snapshot(a.world().storage(), cp.snapshot))
                      .ok());
      r.checkpoints.push_back(std::move(cp));
    }
    p0->generate(t, a.world(), std::span<std::byte>(frame.data(), sizeof(VInput)));
    p1->generate(t, a.world(), std::span<std::byte>(frame.data() + sizeof(VInput), sizeof(VInput)));
    std::vector<std::byte> canonical(frame.size());
    Runner::copy_to_canonical(sim.input_type(), frame, canonical);
    r.inputs.insert(r.inputs.end(), canonical.begin(), canonical.end());
    EXPECT_TRUE(a.step(frame).ok()) << "tick " << t;
  }
  return r;
}

// Loads `snapshot` into a fresh runner and steps the recording's frames from `from` to `to`.
lockstep::inspect::State resume(const ViewSim& sim, const lockstep::replay::Replay& r, std::span<const std::byte> snapshot,
                                std::uint64_t from, std::uint64_t to) {
  Runner b(sim, two_players());
  EXPECT_TRUE(b.status().ok());
  Snapshot scratch(b.world());
  const FileStatus st = lockstep::load_snapshot_bytes(snapshot, b.world(), scratch, "checkpoint");
  EXPECT_TRUE(st.ok()) << st.message;
  (void)b.rehash();
  std::vector<std::byte> frame(b.frame_bytes());
  for (std::uint64_t t = from; t < to; ++t) {
    Runner::copy_to_host(sim.input_type(), r.frame(t), frame);
    EXPECT_TRUE(b.step(frame).ok());
  }
  return lockstep::inspect::capture(b.world().storage());
}

}  // namespace

// Checkpoints of a sim with views carry the view state (format 2), so a tool that opens a
// recording at a tick (dump, query, diff, the viewer: inspect::advance_to) resumes from the
// nearest checkpoint and gets exactly the uninterrupted state.
TEST(ViewSim, StateAtATickOfARecordingWithCheckpointsIsTheUninterruptedOne) {
  const ViewSim sim;
  Runner a(sim, two_players());
  ASSERT_TRUE(a.status().ok()) << a.status().message();
  const std::uint64_t ticks = 120;
  const lockstep::replay::Replay r = record_with_checkpoints(sim, a, ticks);
  ASSERT_EQ(r.checkpoints.size(), 2u);
  EXPECT_EQ(lockstep::snapshot_file_version(r.checkpoints[1].snapshot), lockstep::kSnapshotFileVersionViews);
  const lockstep::inspect::State want = lockstep::inspect::capture(a.world().storage());
  lockstep::inspect::State at;
  ASSERT_TRUE(lockstep::inspect::state_at_tick(sim, r, ticks, at, "views.replay").ok());
  lockstep::inspect::StateDiff d = lockstep::inspect::diff(want, at);
  EXPECT_TRUE(d.equal()) << d.total << " differences";
  // The checkpoint at 80 is what was used: with other (valid) inputs before it, a run from
  // tick 0 would end elsewhere, but the state at 120 is unchanged.
  lockstep::replay::Replay altered = r;
  for (std::uint64_t t = 0; t < 80; ++t) {
    const std::size_t at_byte = static_cast<std::size_t>(t * altered.header.frame_bytes());
    altered.inputs[at_byte] = static_cast<std::byte>((std::to_integer<unsigned>(altered.inputs[at_byte]) + 3) % 7);
  }
  lockstep::inspect::State from_zero_differs;
  ASSERT_TRUE(lockstep::inspect::state_at_tick(sim, altered, 79, from_zero_differs, "altered.replay").ok());
  Runner a79(sim, two_players());
  ASSERT_TRUE(lockstep::inspect::advance_to(a79, r, 79, "views.replay").ok());
  EXPECT_FALSE(lockstep::inspect::diff(lockstep::inspect::capture(a79.world().storage()), from_zero_differs).equal());
  ASSERT_TRUE(lockstep::inspect::state_at_tick(sim, altered, ticks, at, "altered.replay").ok());
  d = lockstep::inspect::diff(want, at);
  EXPECT_TRUE(d.equal()) << d.total << " differences";
  // Loading the checkpoint directly and stepping agrees too.
  EXPECT_TRUE(lockstep::inspect::diff(want, resume(sim, r, r.checkpoints[1].snapshot, 80, ticks)).equal());
}

// A format-1 checkpoint (an older recorder's) still loads and resets the views, as before:
// the sim then continues differently — which is why tools skip such checkpoints for a sim
// with views (and the proof that the agreement above can fail).
TEST(ViewSim, AFormat1CheckpointLoadsResetsTheViewsAndIsSkippedBySeeking) {
  const ViewSim sim;
  Runner a(sim, two_players());
  const std::uint64_t ticks = 120;
  const lockstep::replay::Replay r = record_with_checkpoints(sim, a, ticks, /*views=*/false);
  const lockstep::inspect::State want = lockstep::inspect::capture(a.world().storage());
  EXPECT_EQ(lockstep::snapshot_file_version(r.checkpoints[1].snapshot), lockstep::kSnapshotFileVersion);
  EXPECT_FALSE(lockstep::inspect::diff(want, resume(sim, r, r.checkpoints[1].snapshot, 80, ticks)).equal());
  lockstep::inspect::State at;
  ASSERT_TRUE(lockstep::inspect::state_at_tick(sim, r, ticks, at, "old.replay").ok());
  EXPECT_TRUE(lockstep::inspect::diff(want, at).equal());
}

// The view section is checked by inspect's decoder and left out of the State (a State is what
// the hash covers), and a world without the file's views refuses it before anything changes.
TEST(ViewSim, TheViewSectionIsReadByBothSidesAndAWorldWithoutViewsRefusesIt) {
  const ViewSim sim;
  Runner a(sim, two_players());
  (void)record_with_checkpoints(sim, a, 60);
  std::vector<std::byte> file, plain_file;
  ASSERT_TRUE(lockstep::encode_world_snapshot(a.world(), file).ok());
  ASSERT_TRUE(lockstep::encode_snapshot(a.world().storage(), plain_file).ok());
  std::vector<std::byte> views;
  ASSERT_TRUE(lockstep::encodeViewState(a.world(), views).ok());
  ASSERT_FALSE(views.empty());
  // Format 2 = format 1's body with version 2, then the length-prefixed section.
  ASSERT_EQ(file.size(), plain_file.size() + 8 + views.size());
  EXPECT_TRUE(std::equal(views.begin(), views.end(), file.end() - 8 - static_cast<std::ptrdiff_t>(views.size())));
  lockstep::inspect::State s;
  ASSERT_TRUE(lockstep::inspect::decode_state(file, s, "v.lssnap").ok());
  EXPECT_EQ(lockstep::inspect::encode_state(s), plain_file);
  // Same components, no views registered.
  World plain(sim.world_config(two_players()));
  ASSERT_TRUE(plain.registerComponent<VUnit>().ok());
  ASSERT_TRUE(plain.registerComponent<VScar>().ok());
  ASSERT_TRUE(plain.registerResource<VFrame>(VFrame{}).ok());
  ASSERT_TRUE(plain.registerResource<VTally>(VTally{}).ok());
  Snapshot scratch(plain);
  const FileStatus st = lockstep::load_snapshot_bytes(file, plain, scratch, "v.lssnap");
  const std::size_t views_at = file.size() - 8 - views.size();
  EXPECT_EQ(st.code, ErrorCode::Mismatch) << st.message;
  EXPECT_EQ(st.offset, views_at);
  EXPECT_EQ(st.message, "v.lssnap: byte " + std::to_string(views_at) +
                            ": view section: load: the snapshot's views differ from the world's");
  EXPECT_EQ(plain.tick(), 0u);
}

// `lockstep record` and every recorder that hands it the World: its checkpoints of a sim with
// views are format 2 (seekable from there); from a StorageView they stay format 1.
TEST(ViewSim, ARecorderGivenTheWorldWritesFormat2Checkpoints) {
  const ViewSim sim;
  Runner a(sim, two_players());
  ASSERT_TRUE(a.status().ok());
  const std::string path = ::testing::TempDir() + "view_sim_recorder.replay";
  lockstep::replay::ReplayRecorder rec;
  ASSERT_TRUE(rec.open(path, lockstep::replay::make_header(sim, two_players(), a.world().storage(),
                                                           lockstep::replay::kReplayHasHashes |
                                                               lockstep::replay::kReplayHasCheckpoints,
                                                           lockstep::replay::kDefaultBlockTicks, 20))
                  .ok());
  ASSERT_TRUE(rec.initial(a.hash()).ok());
  std::vector<std::byte> frame(a.frame_bytes());
  std::unique_ptr<Bot> p0 = sim.make_bot(two_players(), 5, 0), p1 = sim.make_bot(two_players(), 5, 1);
  for (std::uint64_t t = 0; t < 60; ++t) {
    p0->generate(t, a.world(), std::span<std::byte>(frame.data(), sizeof(VInput)));
    p1->generate(t, a.world(), std::span<std::byte>(frame.data() + sizeof(VInput), sizeof(VInput)));
    std::vector<std::byte> canonical(frame.size());
    Runner::copy_to_canonical(sim.input_type(), frame, canonical);
    ASSERT_TRUE(a.step(frame).ok());
    ASSERT_TRUE(rec.tick(canonical, &a.hash()).ok());
    if (a.world().tick() == 20) {
      ASSERT_TRUE(rec.checkpoint(a.world()).ok());
    }
    if (a.world().tick() == 40) {
      ASSERT_TRUE(rec.checkpoint(a.world().storage()).ok());
    }
  }
  ASSERT_TRUE(rec.close().ok());
  lockstep::replay::Replay r;
  ASSERT_TRUE(lockstep::replay::read_replay_file(path, r).ok());
  ASSERT_EQ(r.checkpoints.size(), 2u);
  EXPECT_EQ(r.checkpoints[0].tick, 20u);
  EXPECT_EQ(lockstep::snapshot_file_version(r.checkpoints[0].snapshot), lockstep::kSnapshotFileVersionViews);
  EXPECT_EQ(lockstep::snapshot_file_version(r.checkpoints[1].snapshot), lockstep::kSnapshotFileVersion);

  // A rejoiner resuming from this recording (replay/resume.h) starts at tick 20, the newest
  // checkpoint with the views' state; the format-1 one at 40 would reset the views and the
  // hashes after it would not match. Other inputs before tick 20 change nothing: not simulated.
  lockstep::replay::Replay altered = r;
  for (std::uint64_t t = 0; t < 20; ++t) altered.inputs[t * altered.header.frame_bytes()] ^= std::byte{1};
  Runner b(sim, two_players());
  const lockstep::replay::ReplayStatus resumed = lockstep::replay::resume_from_recording(b, altered, nullptr);
  ASSERT_TRUE(resumed.ok()) << resumed.message;
  EXPECT_EQ(b.hash().total, a.hash().total);
  EXPECT_EQ(b.world().tick(), 60u);
}
