// Side by side: the same operations on lockstep, EnTT and flecs, with the raw limit (plain
// loops over arrays of the same data) measured in the same process, and ratios printed at the
// end (docs/benchmarks.md, "Against EnTT and flecs").
//
// The peers' sources are never part of the repository. Configure with
//   -DENTT_DIR=<directory holding EnTT's single header entt.hpp>
//   -DFLECS_DIR=<directory holding flecs' amalgamated flecs.c and flecs.h>
// (or the environment variables of the same names); without them their columns are skipped
// with a note and the lockstep and raw columns still run.
//
// Figures (one process per figure: --benchmark_filter='^FIGURE/'):
//   each     pos += vel over every entity (10k / 100k / 1M)
//   addrm    direct add+remove of Hp on all n entities in one scrambled order (10k / 100k / 1M);
//            lockstep includes the slot-order restore the next read pays (storage())
//   cb       the same at 100k through each library's deferred path: lockstep's command buffer
//            (two flushes), flecs' deferred mode; EnTT has none, its direct calls are shown
//   churn    1 % of 1M entities add+remove Hp (scattered), then one pos += vel pass; and
//            that pass alone (the difference is what the changes cost the next read)
//   changed  1 % of the rows' Pos written (untimed), then a query visiting the changed rows,
//            against a read of every row: lockstep changed<Pos>, flecs detect_changes (per
//            table), EnTT a reactive storage on Pos's on_update signal (its observer)
// Every library stores the same Pos / Vel / Hp structs (made of lockstep::fixed, int64 raw
// values) and runs the same loop body.
//
// Run (one figure): build/tests/bench/bench_peers --benchmark_filter='^each/'
//   --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
#include "kernel_fixtures.h"
#include "ratio_reporter.h"

#include <lockstep/query/cached_query.h>
#include <lockstep/world.h>

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#ifndef LOCKSTEP_BENCH_ENTT
#define LOCKSTEP_BENCH_ENTT 0  // set by tests/bench/CMakeLists.txt when ENTT_DIR is given
#endif
#ifndef LOCKSTEP_BENCH_FLECS
#define LOCKSTEP_BENCH_FLECS 0  // set when FLECS_DIR is given
#endif
#if LOCKSTEP_BENCH_ENTT
#include <entt.hpp>
#endif
#if LOCKSTEP_BENCH_FLECS
#include <flecs.h>
#endif

namespace {

using namespace lockstep_bench;  // the shared fixtures (kernel_fixtures.h)

constexpr std::uint32_t kCbSize = 100000;
constexpr std::uint32_t kChurnSize = 1000000;

// One fixture alive at a time, kept across the repetitions of a benchmark (and shared by the
// benchmarks that name the same key): building a 1M-entity world is slower than measuring it.
// The key and the type live beside the one fixture (not in a static per call site), so a
// benchmark that runs between two repetitions of another (--benchmark_enable_random_interleaving)
// gets its own object rebuilt instead of the other's, cast to the wrong type.
template <class T>
constexpr char kTypeTag = 0;  // &kTypeTag<T>: one address per fixture type
struct HeldFixture {
  std::string key;
  const void* type = nullptr;
  std::shared_ptr<void> object;
};
HeldFixture& held_fixture() {
  static HeldFixture held;
  return held;
}
template <class T, class Make>
T& fixture(const std::string& key, Make make) {
  HeldFixture& held = held_fixture();
  if (!held.object || held.key != key || held.type != &kTypeTag<T>) {
    held.object.reset();  // free the previous fixture before building the next one
    held.object = std::shared_ptr<T>(make());
    held.key = key;
    held.type = &kTypeTag<T>;
  }
  return *static_cast<T*>(held.object.get());
}

std::uint32_t size_of(const benchmark::State& state) { return static_cast<std::uint32_t>(state.range(0)); }

// ---- lockstep ---------------------------------------------------------------------------

void each_pass(lockstep::World& w) {
  (void)w.each<Pos, Vel>(
      [](lockstep::Entity, Pos& p, const Vel& v) {
        p.x += v.x;
        p.y += v.y;
      },
      lockstep::Write{}, lockstep::Read{});
}

void ls_each(benchmark::State& state) {
  const std::uint32_t n = size_of(state);
  lockstep::World& w = fixture<lockstep::World>("ls/each/" + std::to_string(n), [&] { return make_world(n).release(); });
  for (auto _ : state) {
    each_pass(w);
    benchmark::ClobberMemory();
  }
}

void ls_addrm(benchmark::State& state) {
  const std::uint32_t n = size_of(state);
  lockstep::World& w = fixture<lockstep::World>("ls/addrm/" + std::to_string(n), [&] { return make_world(n).release(); });
  for (auto _ : state) {
    for (std::uint32_t i = 0; i < n; ++i) {
      const lockstep::Entity e{scrambled(i, n), 1};
      (void)w.addComponent(e, Hp{1, 1});
      (void)w.removeComponent<Hp>(e);
    }
    benchmark::DoNotOptimize(w.storage().archetype_count());  // the restore the next read pays
  }
}

void ls_cb(benchmark::State& state) {
  const std::uint32_t n = size_of(state);
  lockstep::World& w =
      fixture<lockstep::World>("ls/cb/" + std::to_string(n), [&] { return make_world(n, n + 1024).release(); });
  for (auto _ : state) {
    lockstep::CommandBuffer& cb = w.commands();
    for (std::uint32_t i = 0; i < n; ++i) (void)cb.addComponent(lockstep::Entity{scrambled(i, n), 1}, Hp{1, 1});
    (void)w.flush();
    for (std::uint32_t i = 0; i < n; ++i) (void)cb.removeComponent<Hp>(lockstep::Entity{scrambled(i + 7, n), 1});
    (void)w.flush();
    benchmark::DoNotOptimize(w.storage().archetype_count());
  }
}

struct LsChurn {
  std::unique_ptr<lockstep::World> w;
  std::uint32_t n;
  std::uint64_t next = 0;
  void changes() {
    for (std::uint32_t k = 0; k < n / 100; ++k) {
      const lockstep::Entity e{scrambled(next++, n), 1};
      (void)w->addComponent(e, Hp{1, 1});
      (void)w->removeComponent<Hp>(e);
    }
  }
  // 1 % of the entities move for good: each gains Hp when it has none, loses it otherwise (rows
  // leave one archetype and arrive out of slot order in the other).
  void moves() {
    for (std::uint32_t k = 0; k < n / 100; ++k) {
      const lockstep::Entity e{scrambled(next++, n), 1};
      if (w->has<Hp>(e)) (void)w->removeComponent<Hp>(e);
      else (void)w->addComponent(e, Hp{1, 1});
    }
  }
};
LsChurn& ls_churn_fixture(std::uint32_t n) {
  return fixture<LsChurn>("ls/churn/" + std::to_string(n), [&] { return new LsChurn{make_world(n), n}; });
}
void ls_churn_pass(benchmark::State& state) {
  LsChurn& f = ls_churn_fixture(size_of(state));
  for (auto _ : state) {
    f.changes();
    each_pass(*f.w);  // the next read: restores slot order, then iterates
    benchmark::ClobberMemory();
  }
}
void ls_pass(benchmark::State& state) {
  LsChurn& f = ls_churn_fixture(size_of(state));
  for (auto _ : state) {
    each_pass(*f.w);
    benchmark::ClobberMemory();
  }
}
void ls_moves_pass(benchmark::State& state) {
  LsChurn& f = ls_churn_fixture(size_of(state));
  for (auto _ : state) {
    f.moves();
    each_pass(*f.w);
    benchmark::ClobberMemory();
  }
}
// The restore alone (the changes made with the timer paused), as bench_kernel measures it.
template <bool Moves>
void ls_restore_only(benchmark::State& state) {
  LsChurn& f = ls_churn_fixture(size_of(state));
  for (auto _ : state) {
    state.PauseTiming();
    if (Moves) f.moves();
    else f.changes();
    state.ResumeTiming();
    benchmark::DoNotOptimize(f.w->storage().archetype_count());
  }
}

struct LsTracked {
  std::unique_ptr<lockstep::World> w;
  std::uint64_t next = 0;
};
LsTracked& ls_tracked(std::uint32_t n) {
  return fixture<LsTracked>("ls/changed/" + std::to_string(n), [&] {
    lockstep::WorldConfig c;
    c.max_entities = n + 1024;
    c.max_tracked_components = 1;
    auto w = std::make_unique<lockstep::World>(c);
    (void)w->registerComponent<Pos>();
    (void)w->registerComponent<Vel>();
    (void)w->trackChanges<Pos>();
    for (std::uint32_t i = 0; i < n; ++i) {
      const lockstep::Entity e = w->create();
      (void)w->addComponent(e, make_pos(i));
      (void)w->addComponent(e, make_vel());
    }
    return new LsTracked{std::move(w)};
  });
}
void ls_changed(benchmark::State& state) {
  const std::uint32_t n = size_of(state);
  LsTracked& f = ls_tracked(n);
  lockstep::CachedQuery<lockstep::term::read<Pos>, lockstep::term::changed<Pos>> q;
  std::int64_t sum = 0;
  for (auto _ : state) {
    state.PauseTiming();
    f.w->advanceTick();
    for (std::uint32_t k = 0; k < n / 100; ++k) {
      const auto s = scrambled(f.next++, n);
      *f.w->getMutable<Pos>(lockstep::Entity{s, 1}) = make_pos(s);
    }
    state.ResumeTiming();
    (void)q.since(f.w->tick()).each(*f.w, [&](lockstep::Entity, const Pos& p) { sum += p.x.raw(); });
    benchmark::DoNotOptimize(sum);
  }
}
void ls_read_all(benchmark::State& state) {
  LsTracked& f = ls_tracked(size_of(state));
  lockstep::CachedQuery<lockstep::term::read<Pos>> q;
  std::int64_t sum = 0;
  for (auto _ : state) {
    (void)q.each(*f.w, [&](lockstep::Entity, const Pos& p) { sum += p.x.raw(); });
    benchmark::DoNotOptimize(sum);
  }
}

// ---- raw limit ----------------------------------------------------------------------------

void raw_each(benchmark::State& state) {
  RawPosVel& raw = fixture<RawPosVel>("raw/each/" + std::to_string(size_of(state)),
                                      [&] { return new RawPosVel(size_of(state)); });
  for (auto _ : state) {
    raw.update();
    benchmark::ClobberMemory();
  }
}

// Two swap-remove SoA tables (Pos+Vel, Pos+Vel+Hp) and an entity -> row index.
struct RawStore {
  RawTable a, b;
  std::vector<std::uint32_t> row;
  std::vector<std::uint8_t> in_b;  // which table holds the entity
  std::uint64_t next = 0;
  explicit RawStore(std::uint32_t n) : row(n), in_b(n) {
    a.pos.reserve(n), a.vel.reserve(n), a.slot.reserve(n);
    b.pos.reserve(n), b.vel.reserve(n), b.hp.reserve(n + 1), b.slot.reserve(n);
    for (std::uint32_t s = 0; s < n; ++s) {
      a.push(s, make_pos(s), make_vel(), nullptr);
      row[s] = s;
    }
  }
  void add(std::uint32_t s) {
    const Hp h{1, 1};
    const std::uint32_t r = row[s];
    b.push(s, a.pos[r], a.vel[r], &h);
    a.swap_remove(r, row);
    row[s] = static_cast<std::uint32_t>(b.slot.size() - 1);
    in_b[s] = 1;
  }
  void remove(std::uint32_t s) {
    const std::uint32_t r = row[s];
    a.push(s, b.pos[r], b.vel[r], nullptr);
    b.swap_remove(r, row);
    row[s] = static_cast<std::uint32_t>(a.slot.size() - 1);
    in_b[s] = 0;
  }
  void pass() {
    RawPosVel::update(a.pos.data(), a.vel.data(), a.pos.size());
    RawPosVel::update(b.pos.data(), b.vel.data(), b.pos.size());
  }
};
RawStore& raw_store(const char* what, std::uint32_t n) {
  return fixture<RawStore>(std::string("raw/") + what + "/" + std::to_string(n), [&] { return new RawStore(n); });
}

void raw_addrm(benchmark::State& state) {
  const std::uint32_t n = size_of(state);
  RawStore& r = raw_store("addrm", n);
  for (auto _ : state) {
    for (std::uint32_t i = 0; i < n; ++i) {
      const std::uint32_t s = scrambled(i, n);
      r.add(s);
      r.remove(s);
    }
    benchmark::DoNotOptimize(r.row.data());
  }
}
void raw_cb(benchmark::State& state) {
  const std::uint32_t n = size_of(state);
  RawStore& r = raw_store("cb", n);
  for (auto _ : state) {
    for (std::uint32_t i = 0; i < n; ++i) r.add(scrambled(i, n));
    for (std::uint32_t i = 0; i < n; ++i) r.remove(scrambled(i + 7, n));
    benchmark::DoNotOptimize(r.row.data());
  }
}
void raw_churn_pass(benchmark::State& state) {
  const std::uint32_t n = size_of(state);
  RawStore& r = raw_store("churn", n);
  for (auto _ : state) {
    for (std::uint32_t k = 0; k < n / 100; ++k) {
      const std::uint32_t s = scrambled(r.next++, n);
      r.add(s);
      r.remove(s);
    }
    r.pass();
    benchmark::ClobberMemory();
  }
}
void raw_moves_pass(benchmark::State& state) {
  const std::uint32_t n = size_of(state);
  RawStore& r = raw_store("churn", n);
  for (auto _ : state) {
    for (std::uint32_t k = 0; k < n / 100; ++k) {
      const std::uint32_t s = scrambled(r.next++, n);
      if (r.in_b[s]) r.remove(s);
      else r.add(s);
    }
    r.pass();
    benchmark::ClobberMemory();
  }
}
void raw_pass(benchmark::State& state) {
  RawStore& r = raw_store("churn", size_of(state));
  for (auto _ : state) {
    r.pass();
    benchmark::ClobberMemory();
  }
}

struct RawRead {
  explicit RawRead(std::uint32_t n) : data(n) {
    std::vector<bool> hit(n);
    for (std::uint32_t k = 0; k < n / 100; ++k) hit[scrambled(k, n)] = true;
    for (std::uint32_t s = 0; s < n; ++s) {
      if (hit[s]) changed.push_back(s);
    }
  }
  RawPosVel data;
  std::vector<std::uint32_t> changed;  // 1 % of the rows, ascending: what a changed query visits
};
RawRead& raw_read(std::uint32_t n) {
  return fixture<RawRead>("raw/changed/" + std::to_string(n), [&] { return new RawRead(n); });
}
void raw_read_all(benchmark::State& state) {
  RawRead& r = raw_read(size_of(state));
  std::int64_t sum = 0;
  for (auto _ : state) {
    for (std::size_t i = 0; i < r.data.n; ++i) sum += r.data.pos[i].x.raw();
    benchmark::DoNotOptimize(sum);
  }
}
void raw_read_changed(benchmark::State& state) {
  RawRead& r = raw_read(size_of(state));
  std::int64_t sum = 0;
  for (auto _ : state) {
    for (const std::uint32_t s : r.changed) sum += r.data.pos[s].x.raw();
    benchmark::DoNotOptimize(sum);
  }
}

// ---- EnTT ---------------------------------------------------------------------------------
#if LOCKSTEP_BENCH_ENTT
struct EnttWorld {
  entt::registry reg;
  std::vector<entt::entity> ents;
  std::uint64_t next = 0;
  explicit EnttWorld(std::uint32_t n, bool group = false) {
    ents.reserve(n);
    if (group) (void)reg.group<Pos, Vel>();  // a full-owning group: Pos and Vel packed in step
    for (std::uint32_t i = 0; i < n; ++i) {
      const entt::entity e = reg.create();
      reg.emplace<Pos>(e, make_pos(i));
      reg.emplace<Vel>(e, make_vel());
      ents.push_back(e);
    }
  }
  void pass() {
    reg.view<Pos, const Vel>().each([](Pos& p, const Vel& v) {
      p.x += v.x;
      p.y += v.y;
    });
  }
};
EnttWorld& entt_world(const char* what, std::uint32_t n, bool group = false) {
  return fixture<EnttWorld>(std::string("entt/") + what + "/" + std::to_string(n),
                            [&] { return new EnttWorld(n, group); });
}

void entt_each_view(benchmark::State& state) {
  EnttWorld& w = entt_world("each_view", size_of(state));
  for (auto _ : state) {
    w.pass();
    benchmark::ClobberMemory();
  }
}
void entt_each_group(benchmark::State& state) {
  EnttWorld& w = entt_world("each_group", size_of(state), true);
  auto group = w.reg.group<Pos, Vel>();
  for (auto _ : state) {
    group.each([](Pos& p, const Vel& v) {
      p.x += v.x;
      p.y += v.y;
    });
    benchmark::ClobberMemory();
  }
}
void entt_addrm(benchmark::State& state) {
  const std::uint32_t n = size_of(state);
  EnttWorld& w = entt_world("addrm", n);
  for (auto _ : state) {
    for (std::uint32_t i = 0; i < n; ++i) {
      const entt::entity e = w.ents[scrambled(i, n)];
      w.reg.emplace<Hp>(e, Hp{1, 1});
      w.reg.remove<Hp>(e);
    }
    benchmark::ClobberMemory();
  }
}
void entt_cb(benchmark::State& state) {  // no command buffer: the direct calls, in the same two phases
  const std::uint32_t n = size_of(state);
  EnttWorld& w = entt_world("cb", n);
  for (auto _ : state) {
    for (std::uint32_t i = 0; i < n; ++i) w.reg.emplace<Hp>(w.ents[scrambled(i, n)], Hp{1, 1});
    for (std::uint32_t i = 0; i < n; ++i) w.reg.remove<Hp>(w.ents[scrambled(i + 7, n)]);
    benchmark::ClobberMemory();
  }
}
void entt_churn_changes(EnttWorld& w) {
  const auto n = static_cast<std::uint32_t>(w.ents.size());
  for (std::uint32_t k = 0; k < n / 100; ++k) {
    const entt::entity e = w.ents[scrambled(w.next++, n)];
    w.reg.emplace<Hp>(e, Hp{1, 1});
    w.reg.remove<Hp>(e);
  }
}
void entt_churn_pass(benchmark::State& state) {
  EnttWorld& w = entt_world("churn", size_of(state));
  for (auto _ : state) {
    entt_churn_changes(w);
    w.pass();
    benchmark::ClobberMemory();
  }
}
void entt_moves_pass(benchmark::State& state) {
  EnttWorld& w = entt_world("churn", size_of(state));
  const auto n = static_cast<std::uint32_t>(w.ents.size());
  for (auto _ : state) {
    for (std::uint32_t k = 0; k < n / 100; ++k) {
      const entt::entity e = w.ents[scrambled(w.next++, n)];
      if (w.reg.all_of<Hp>(e)) w.reg.remove<Hp>(e);
      else w.reg.emplace<Hp>(e, Hp{1, 1});
    }
    w.pass();
    benchmark::ClobberMemory();
  }
}
void entt_pass(benchmark::State& state) {
  EnttWorld& w = entt_world("churn", size_of(state));
  for (auto _ : state) {
    w.pass();
    benchmark::ClobberMemory();
  }
}

// EnTT's closest to changed<T>: a reactive storage collecting the entities whose Pos was
// replaced/patched (on_update), consumed and cleared by the "query".
struct EnttObserved {
  EnttWorld w;
  entt::reactive_mixin<entt::storage<void>> observer;
  explicit EnttObserved(std::uint32_t n) : w(n) {
    observer.bind(w.reg);
    observer.on_update<Pos>();
  }
};
EnttObserved& entt_observed(std::uint32_t n) {
  return fixture<EnttObserved>("entt/changed/" + std::to_string(n), [&] { return new EnttObserved(n); });
}
void entt_changed(benchmark::State& state) {
  const std::uint32_t n = size_of(state);
  EnttObserved& f = entt_observed(n);
  std::int64_t sum = 0;
  for (auto _ : state) {
    state.PauseTiming();
    for (std::uint32_t k = 0; k < n / 100; ++k) {
      const auto s = scrambled(f.w.next++, n);
      f.w.reg.replace<Pos>(f.w.ents[s], make_pos(s));
    }
    state.ResumeTiming();
    for (const entt::entity e : f.observer) sum += f.w.reg.get<Pos>(e).x.raw();
    f.observer.clear();
    benchmark::DoNotOptimize(sum);
  }
}
void entt_read_all(benchmark::State& state) {
  EnttObserved& f = entt_observed(size_of(state));
  std::int64_t sum = 0;
  for (auto _ : state) {
    f.w.reg.view<const Pos>().each([&](const Pos& p) { sum += p.x.raw(); });
    benchmark::DoNotOptimize(sum);
  }
}
// The same read over Pos's storage directly (its packed pages, no view).
void entt_read_storage(benchmark::State& state) {
  EnttObserved& f = entt_observed(size_of(state));
  const auto& storage = f.w.reg.storage<Pos>();
  std::int64_t sum = 0;
  for (auto _ : state) {
    for (const Pos& p : storage) sum += p.x.raw();
    benchmark::DoNotOptimize(sum);
  }
}
#endif

// ---- flecs --------------------------------------------------------------------------------
#if LOCKSTEP_BENCH_FLECS
struct FlecsWorld {
  flecs::world world;
  std::vector<flecs::entity> ents;
  flecs::query<Pos, const Vel> q;
  std::uint64_t next = 0;
  explicit FlecsWorld(std::uint32_t n) {
    world.component<Pos>();
    world.component<Vel>();
    world.component<Hp>();
    ents.reserve(n);
    for (std::uint32_t i = 0; i < n; ++i) ents.push_back(world.entity().set<Pos>(make_pos(i)).set<Vel>(make_vel()));
    q = world.query_builder<Pos, const Vel>().cached().build();
  }
  void pass() {
    q.each([](Pos& p, const Vel& v) {
      p.x += v.x;
      p.y += v.y;
    });
  }
};
FlecsWorld& flecs_world(const char* what, std::uint32_t n) {
  return fixture<FlecsWorld>(std::string("flecs/") + what + "/" + std::to_string(n), [&] { return new FlecsWorld(n); });
}

void flecs_each(benchmark::State& state) {
  FlecsWorld& w = flecs_world("each", size_of(state));
  for (auto _ : state) {
    w.pass();
    benchmark::ClobberMemory();
  }
}
void flecs_addrm(benchmark::State& state) {
  const std::uint32_t n = size_of(state);
  FlecsWorld& w = flecs_world("addrm", n);
  for (auto _ : state) {
    for (std::uint32_t i = 0; i < n; ++i) {
      const flecs::entity e = w.ents[scrambled(i, n)];
      e.set<Hp>(Hp{1, 1});
      e.remove<Hp>();
    }
    benchmark::ClobberMemory();
  }
}
void flecs_cb(benchmark::State& state) {  // deferred mode: commands queued, applied at defer_end
  const std::uint32_t n = size_of(state);
  FlecsWorld& w = flecs_world("cb", n);
  for (auto _ : state) {
    w.world.defer_begin();
    for (std::uint32_t i = 0; i < n; ++i) w.ents[scrambled(i, n)].set<Hp>(Hp{1, 1});
    w.world.defer_end();
    w.world.defer_begin();
    for (std::uint32_t i = 0; i < n; ++i) w.ents[scrambled(i + 7, n)].remove<Hp>();
    w.world.defer_end();
    benchmark::ClobberMemory();
  }
}
void flecs_churn_pass(benchmark::State& state) {
  FlecsWorld& w = flecs_world("churn", size_of(state));
  const auto n = static_cast<std::uint32_t>(w.ents.size());
  for (auto _ : state) {
    for (std::uint32_t k = 0; k < n / 100; ++k) {
      const flecs::entity e = w.ents[scrambled(w.next++, n)];
      e.set<Hp>(Hp{1, 1});
      e.remove<Hp>();
    }
    w.pass();
    benchmark::ClobberMemory();
  }
}
void flecs_moves_pass(benchmark::State& state) {
  FlecsWorld& w = flecs_world("churn", size_of(state));
  const auto n = static_cast<std::uint32_t>(w.ents.size());
  for (auto _ : state) {
    for (std::uint32_t k = 0; k < n / 100; ++k) {
      const flecs::entity e = w.ents[scrambled(w.next++, n)];
      if (e.has<Hp>()) e.remove<Hp>();
      else e.set<Hp>(Hp{1, 1});
    }
    w.pass();
    benchmark::ClobberMemory();
  }
}
void flecs_pass(benchmark::State& state) {
  FlecsWorld& w = flecs_world("churn", size_of(state));
  for (auto _ : state) {
    w.pass();
    benchmark::ClobberMemory();
  }
}

// flecs change detection: a cached query with detect_changes(); changed() tells whether any
// matched table changed, it.changed() per table (a table's rows are skipped only when no row
// of it was written: one table here, so 1 % changed rows mean the whole table is read).
struct FlecsObserved {
  FlecsWorld w;
  flecs::query<const Pos> changed_q;
  flecs::query<const Pos> all_q;
  explicit FlecsObserved(std::uint32_t n) : w(n) {
    changed_q = w.world.query_builder<const Pos>().detect_changes().cached().build();
    all_q = w.world.query_builder<const Pos>().cached().build();
  }
};
FlecsObserved& flecs_observed(std::uint32_t n) {
  return fixture<FlecsObserved>("flecs/changed/" + std::to_string(n), [&] { return new FlecsObserved(n); });
}
void flecs_changed(benchmark::State& state) {
  const std::uint32_t n = size_of(state);
  FlecsObserved& f = flecs_observed(n);
  std::int64_t sum = 0;
  for (auto _ : state) {
    state.PauseTiming();
    for (std::uint32_t k = 0; k < n / 100; ++k) {
      const auto s = scrambled(f.w.next++, n);
      f.w.ents[s].set<Pos>(make_pos(s));
    }
    state.ResumeTiming();
    if (f.changed_q.changed()) {
      f.changed_q.run([&](flecs::iter& it) {
        while (it.next()) {
          if (!it.changed()) continue;
          const auto p = it.field<const Pos>(0);
          for (const auto i : it) sum += p[i].x.raw();
        }
      });
    }
    benchmark::DoNotOptimize(sum);
  }
}
void flecs_read_all(benchmark::State& state) {
  FlecsObserved& f = flecs_observed(size_of(state));
  std::int64_t sum = 0;
  for (auto _ : state) {
    f.all_q.each([&](const Pos& p) { sum += p.x.raw(); });
    benchmark::DoNotOptimize(sum);
  }
}
#endif

// ---- registration and summary ---------------------------------------------------------------

constexpr bool kEntt = LOCKSTEP_BENCH_ENTT != 0;
constexpr bool kFlecs = LOCKSTEP_BENCH_FLECS != 0;

benchmark::internal::Benchmark* reg(const std::string& name, void (*fn)(benchmark::State&), std::int64_t n,
                                    benchmark::TimeUnit unit) {
  return benchmark::RegisterBenchmark(name.c_str(), fn)->Arg(n)->Unit(unit);
}

void register_all() {
  using benchmark::kMicrosecond;
  using benchmark::kMillisecond;
  for (const std::int64_t n : {10000, 100000, 1000000}) {
    const auto unit = n >= 1000000 ? kMillisecond : kMicrosecond;
    reg("each/raw", raw_each, n, unit);
    reg("each/lockstep", ls_each, n, unit);
#if LOCKSTEP_BENCH_ENTT
    reg("each/entt_view", entt_each_view, n, unit);
    reg("each/entt_group", entt_each_group, n, unit);
#endif
#if LOCKSTEP_BENCH_FLECS
    reg("each/flecs", flecs_each, n, unit);
#endif
  }
  for (const std::int64_t n : {10000, 100000, 1000000}) {
    reg("addrm/raw", raw_addrm, n, kMillisecond);
    reg("addrm/lockstep", ls_addrm, n, kMillisecond);
#if LOCKSTEP_BENCH_ENTT
    reg("addrm/entt", entt_addrm, n, kMillisecond);
#endif
#if LOCKSTEP_BENCH_FLECS
    reg("addrm/flecs", flecs_addrm, n, kMillisecond);
#endif
  }
  reg("cb/raw", raw_cb, kCbSize, kMillisecond);
  reg("cb/lockstep", ls_cb, kCbSize, kMillisecond);
#if LOCKSTEP_BENCH_ENTT
  reg("cb/entt_direct", entt_cb, kCbSize, kMillisecond);
#endif
#if LOCKSTEP_BENCH_FLECS
  reg("cb/flecs_deferred", flecs_cb, kCbSize, kMillisecond);
#endif
  // pass and changes+pass share one fixture per library (registered next to each other)
  reg("churn/raw/pass", raw_pass, kChurnSize, kMillisecond);
  reg("churn/raw/changes_pass", raw_churn_pass, kChurnSize, kMillisecond);
  reg("churn/raw/moves_pass", raw_moves_pass, kChurnSize, kMillisecond);
  reg("churn/lockstep/pass", ls_pass, kChurnSize, kMillisecond);
  reg("churn/lockstep/changes_pass", ls_churn_pass, kChurnSize, kMillisecond);
  // The restores alone run a fixed 30 iterations: the untimed changes would dominate otherwise.
  reg("churn/lockstep/restore_only", ls_restore_only<false>, kChurnSize, kMillisecond)->Iterations(30);
  reg("churn/lockstep/moves_pass", ls_moves_pass, kChurnSize, kMillisecond);
  reg("churn/lockstep/moves_restore_only", ls_restore_only<true>, kChurnSize, kMillisecond)->Iterations(30);
#if LOCKSTEP_BENCH_ENTT
  reg("churn/entt/pass", entt_pass, kChurnSize, kMillisecond);
  reg("churn/entt/changes_pass", entt_churn_pass, kChurnSize, kMillisecond);
  reg("churn/entt/moves_pass", entt_moves_pass, kChurnSize, kMillisecond);
#endif
#if LOCKSTEP_BENCH_FLECS
  reg("churn/flecs/pass", flecs_pass, kChurnSize, kMillisecond);
  reg("churn/flecs/changes_pass", flecs_churn_pass, kChurnSize, kMillisecond);
  reg("churn/flecs/moves_pass", flecs_moves_pass, kChurnSize, kMillisecond);
#endif
  for (const std::int64_t n : {100000, 1000000}) {
    reg("changed/raw/read_all", raw_read_all, n, kMicrosecond);
    reg("changed/raw/read_changed", raw_read_changed, n, kMicrosecond);
    reg("changed/lockstep/read_all", ls_read_all, n, kMicrosecond);
    reg("changed/lockstep/changed", ls_changed, n, kMicrosecond);
#if LOCKSTEP_BENCH_ENTT
    reg("changed/entt/read_all", entt_read_all, n, kMicrosecond);
    reg("changed/entt/read_storage", entt_read_storage, n, kMicrosecond);
    reg("changed/entt/changed", entt_changed, n, kMicrosecond);
#endif
#if LOCKSTEP_BENCH_FLECS
    reg("changed/flecs/read_all", flecs_read_all, n, kMicrosecond);
    reg("changed/flecs/changed", flecs_changed, n, kMicrosecond);
#endif
  }
}

const char* kNotGivenEntt = "EnTT: not given (configure with -DENTT_DIR=<dir of entt.hpp>); its columns are skipped";
const char* kNotGivenFlecs = "flecs: not given (configure with -DFLECS_DIR=<dir of flecs.c, flecs.h>); its columns are skipped";

void print_peers() {
#if LOCKSTEP_BENCH_ENTT
  std::printf("EnTT %s (single header, ENTT_DIR)\n", ENTT_VERSION);
#else
  std::printf("%s\n", kNotGivenEntt);
#endif
#if LOCKSTEP_BENCH_FLECS
  std::printf("flecs %d.%d.%d (amalgamated source, FLECS_DIR)\n", FLECS_VERSION_MAJOR, FLECS_VERSION_MINOR,
              FLECS_VERSION_PATCH);
#else
  std::printf("%s\n", kNotGivenFlecs);
#endif
}

// "12.3" or "  -  " when the benchmark did not run (filtered out, or peer not given).
std::string cell(double v, const char* fmt = "%9.1f") {
  char buf[32];
  if (v > 0) std::snprintf(buf, sizeof buf, fmt, v);
  else std::snprintf(buf, sizeof buf, "%9s", "-");
  return buf;
}
double ratio(double a, double b) { return a > 0 && b > 0 ? a / b : 0.0; }

void summary(const lockstep_bench::RatioReporter& r) {
  std::printf("\nsummary: medians of thread-CPU time; ratios taken within this run\n");
  print_peers();
  auto ns = [&](const std::string& name) { return r.ns(name); };
  auto per = [&](const std::string& name, double count) { return ns(name) / count; };

  // each and addrm: ns per entity per library, lockstep / peer and / raw.
  struct Figure {
    const char* key;
    const char* title;
    const char* entt;
  };
  for (const Figure f : {Figure{"each", "pos += vel, ns per entity", "entt_group"},
                         Figure{"addrm", "direct add+remove of Hp, all n in scrambled order, ns per entity "
                                         "(lockstep: restore included)",
                                "entt"}}) {
    bool header = false;
    for (const char* n : {"10000", "100000", "1000000"}) {
      const double c = std::stod(n);
      const std::string s = std::string("/") + n;
      const std::string k = f.key;
      const double ls = per(k + "/lockstep" + s, c), raw = per(k + "/raw" + s, c);
      const double en = per(k + "/" + f.entt + s, c), fl = per(k + "/flecs" + s, c);
      const double env = per(k + "/entt_view" + s, c);
      if (ls <= 0 && raw <= 0) continue;
      if (!header) {
        std::printf("\n%s: %s\n%9s %9s %9s %9s %9s | %9s %9s %9s%s\n", f.key, f.title, "n", "lockstep", "EnTT", "flecs",
                    "raw", "ls/EnTT", "ls/flecs", "ls/raw", k == "each" ? "   (EnTT = owning group; view)" : "");
        header = true;
      }
      std::printf("%9s %s %s %s %s | %s %s %s", n, cell(ls, "%9.2f").c_str(), cell(en, "%9.2f").c_str(),
                  cell(fl, "%9.2f").c_str(), cell(raw, "%9.2f").c_str(), cell(ratio(ls, en), "%9.2f").c_str(),
                  cell(ratio(ls, fl), "%9.2f").c_str(), cell(ratio(ls, raw), "%9.2f").c_str());
      if (k == "each" && env > 0) std::printf("   view %.2f", env);
      std::printf("\n");
    }
  }
  {
    const double c = kCbSize;
    const std::string s = "/" + std::to_string(kCbSize);
    const double ls = per("cb/lockstep" + s, c), raw = per("cb/raw" + s, c);
    const double en = per("cb/entt_direct" + s, c), fl = per("cb/flecs_deferred" + s, c);
    if (ls > 0 || raw > 0)
      std::printf("\ncb: add+remove of Hp at 100k recorded in scrambled order, ns per entity: lockstep command "
                  "buffer %s, EnTT direct (no command buffer) %s, flecs deferred %s, raw %s | ls/EnTT %s, ls/flecs "
                  "%s, ls/raw %s\n",
                  cell(ls).c_str(), cell(en).c_str(), cell(fl).c_str(), cell(raw).c_str(),
                  cell(ratio(ls, en), "%.2f").c_str(), cell(ratio(ls, fl), "%.2f").c_str(),
                  cell(ratio(ls, raw), "%.2f").c_str());
  }
  {
    const std::string s = "/" + std::to_string(kChurnSize);
    bool header = false;
    for (const char* lib : {"lockstep", "entt", "flecs", "raw"}) {
      const std::string k = std::string("churn/") + lib;
      const double pass = ns(k + "/pass" + s);
      for (const char* what : {"changes_pass", "moves_pass"}) {
        const double both = ns(k + "/" + what + s);
        if (pass <= 0 || both <= 0) continue;
        if (!header) {
          std::printf("\nchurn: 1%% of 1M entities change (scattered), then one pos += vel pass; ms, and "
                      "(changes + pass) / pass. changes_pass: add+remove of Hp; moves_pass: each gains Hp or "
                      "loses it (moves for good)\n");
          header = true;
        }
        std::printf("%9s %-12s %8.2f ms, pass %8.2f ms, ratio %5.2f (%.0f ns per changed entity, incl. what the "
                    "next pass pays)\n",
                    lib, what, both / 1e6, pass / 1e6, both / pass, (both - pass) / (kChurnSize / 100.0));
      }
    }
    const double pass = ns("churn/lockstep/pass" + s);
    for (const char* what : {"restore_only", "moves_restore_only"}) {
      const double restore = ns("churn/lockstep/" + std::string(what) + s + "/iterations:30");
      if (restore > 0 && pass > 0)
        std::printf("%9s restore of slot order alone after the %s (changes untimed) %.2f ms = %.2f passes\n",
                    "lockstep", std::string(what) == "restore_only" ? "add+remove pairs" : "moves", restore / 1e6,
                    restore / pass);
    }
  }
  for (const char* n : {"100000", "1000000"}) {
    bool header = false;
    for (const char* lib : {"lockstep", "entt", "flecs", "raw"}) {
      const std::string k = std::string("changed/") + lib;
      const std::string s = std::string("/") + n;
      double all = ns(k + "/read_all" + s);
      const double storage = ns(k + "/read_storage" + s);  // EnTT: the faster of view and storage
      if (storage > 0 && (all <= 0 || storage < all)) all = storage;
      const double ch = ns(k + (std::string(lib) == "raw" ? "/read_changed" : "/changed") + s);
      if (all <= 0 || ch <= 0) continue;
      if (!header) {
        std::printf("\nchanged: %s entities, 1%% of the rows' Pos written; query visiting the changed rows / read "
                    "of every row\n",
                    n);
        header = true;
      }
      std::printf("%9s changed %9.1f us, read all %9.1f us, ratio %6.3f%s\n", lib, ch / 1e3, all / 1e3, ch / all,
                  std::string(lib) == "raw"      ? "  (the changed rows by an index list)"
                  : std::string(lib) == "entt"   ? "  (reactive storage on on_update<Pos>; read all: the faster of view and storage)"
                  : std::string(lib) == "flecs"  ? "  (detect_changes: per table)"
                                                 : "  (changed<Pos> term)");
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (!kEntt) std::printf("%s\n", kNotGivenEntt);
  if (!kFlecs) std::printf("%s\n", kNotGivenFlecs);
  register_all();
  lockstep_bench::RatioReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  held_fixture().object.reset();
  summary(reporter);
  benchmark::Shutdown();
  return 0;
}
