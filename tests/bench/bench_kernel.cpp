// Kernel benchmarks (issue 2): World::each against a hand-written loop over the same SoA
// columns, entity create+destroy throughput, and a command-buffer flush of 1% structural
// changes at 100k entities against the same changes made by direct calls. Components are made
// of lockstep::fixed, as game components are (issue 25: clang's each loop over fixed fields was
// 1.6-1.9x the raw loop while the same loop over int64 fields was ~1.0); the each-vs-raw pair
// is also measured over int64 fields (BM_*_i64).
// Run: build/tests/bench/bench_kernel --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
#include "kernel_fixtures.h"
#include "ratio_reporter.h"

#include <lockstep/math/fixed.h>
#include <lockstep/world.h>

#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstdio>
#include <memory>
#include <new>
#include <string>
#include <utility>
#include <vector>

namespace {

using namespace lockstep_bench;  // the shared fixtures (kernel_fixtures.h)

// The same pair over int64 fields (the iteration code must be at the raw limit for both).
struct PosI {
  std::int64_t x, y;
};
LOCKSTEP_COMPONENT(PosI, x, y);
struct VelI {
  std::int64_t x, y;
};
LOCKSTEP_COMPONENT(VelI, x, y);

// Both sides of the each-vs-hand-loop comparison iterate the very same world (same memory,
// same cache state), built once per size.
lockstep::World& shared_world(std::uint32_t n) {
  static std::unique_ptr<lockstep::World> small = make_world(10000);
  static std::unique_ptr<lockstep::World> large;
  if (n == 10000) return *small;
  if (!large) large = make_world(n);
  return *large;
}

// One Write + one Read pass over every row; VArg is how the callback takes the Read side.
template <class P, class V, class VArg>
void run_each_pos_vel(benchmark::State& state, lockstep::World& w) {
  for (auto _ : state) {
    (void)w.each<P, V>(
        [](lockstep::Entity, P& p, VArg v) {
          p.x += v.x;
          p.y += v.y;
        },
        lockstep::Write{}, lockstep::Read{});
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}

void BM_each_pos_vel(benchmark::State& state) {
  run_each_pos_vel<Pos, Vel, const Vel&>(state, shared_world(static_cast<std::uint32_t>(state.range(0))));
}

// The same loop with the Read component taken by value: its fields are loaded before the
// callback's stores, so clang need not assume that a store to Pos::x (a `fixed` member) may
// change Vel::y (another `fixed` member) and vectorises the row loop (docs/kernel.md, "each").
void BM_each_pos_vel_by_value(benchmark::State& state) {
  run_each_pos_vel<Pos, Vel, Vel>(state, shared_world(static_cast<std::uint32_t>(state.range(0))));
}

std::unique_ptr<lockstep::World> make_world_i64(std::uint32_t n) {
  lockstep::WorldConfig c;
  c.max_entities = n + 1024;
  auto w = std::make_unique<lockstep::World>(c);
  (void)w->registerComponent<PosI>();
  (void)w->registerComponent<VelI>();
  for (std::uint32_t i = 0; i < n; ++i) {
    const lockstep::Entity e = w->create();
    (void)w->addComponent(e, PosI{static_cast<std::int64_t>(i), 0});
    (void)w->addComponent(e, VelI{1, 2});
  }
  return w;
}

lockstep::World& shared_world_i64(std::uint32_t n) {
  static std::unique_ptr<lockstep::World> small, large;
  std::unique_ptr<lockstep::World>& w = n == 10000 ? small : large;
  if (!w) w = make_world_i64(n);
  return *w;
}

void BM_each_pos_vel_i64(benchmark::State& state) {
  run_each_pos_vel<PosI, VelI, const VelI&>(state, shared_world_i64(static_cast<std::uint32_t>(state.range(0))));
}

// The physical limit: the same update over the same column memory, no kernel in between.
void BM_hand_loop_pos_vel(benchmark::State& state) {
  lockstep::World* w = &shared_world(static_cast<std::uint32_t>(state.range(0)));
  const lockstep::StorageView v = w->storage();
  const std::uint32_t a = 2;  // {Pos, Vel}
  auto* pos = reinterpret_cast<Pos*>(const_cast<std::byte*>(v.column_bytes(a, 0).data()));
  const auto* vel = reinterpret_cast<const Vel*>(v.column_bytes(a, 1).data());
  const std::size_t n = v.archetype_rows(a);
  for (auto _ : state) {
    for (std::size_t i = 0; i < n; ++i) {
      pos[i].x += vel[i].x;
      pos[i].y += vel[i].y;
    }
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}

void BM_create_destroy(benchmark::State& state) {
  auto w = make_world(0);
  std::vector<lockstep::Entity> es(1000);
  for (auto _ : state) {
    for (auto& e : es) e = w->create();
    for (auto& e : es) (void)w->destroy(e);
  }
  state.SetItemsProcessed(state.iterations() * 1000);
}

// 1% of 100k entities gain a component and 1% are destroyed, via one flush.
void BM_flush_1pct(benchmark::State& state) {
  const std::uint32_t n = 100000;
  auto w = make_world(n);
  lockstep::Snapshot base(*w);
  w->save(base);
  for (auto _ : state) {
    state.PauseTiming();
    (void)w->load(base);
    lockstep::CommandBuffer& cb = w->commands();
    for (std::uint32_t i = 0; i < n; i += 100) {
      (void)cb.addComponent(lockstep::Entity{i, 1}, Hp{1, 1});
      (void)cb.destroy(lockstep::Entity{i + 50, 1});
    }
    state.ResumeTiming();
    (void)w->flush();
  }
  state.SetItemsProcessed(state.iterations() * (n / 50));
}

void BM_direct_1pct(benchmark::State& state) {
  const std::uint32_t n = 100000;
  auto w = make_world(n);
  lockstep::Snapshot base(*w);
  w->save(base);
  for (auto _ : state) {
    state.PauseTiming();
    (void)w->load(base);
    state.ResumeTiming();
    for (std::uint32_t i = 0; i < n; i += 100) {
      (void)w->addComponent(lockstep::Entity{i, 1}, Hp{1, 1});
      (void)w->destroy(lockstep::Entity{i + 50, 1});
    }
  }
  state.SetItemsProcessed(state.iterations() * (n / 50));
}

// ---- structural changes (issue 11) ---------------------------------------------------------

lockstep::World& structural_world(std::uint32_t n) {
  static std::unique_ptr<lockstep::World> small, large;
  std::unique_ptr<lockstep::World>& w = n <= 10000 ? small : large;
  if (!w) w = make_world(n);
  return *w;
}

// Direct add+remove of one component on one entity (any entity: scrambled order). No read in
// between, so the restores counted are the ones the storage bounds force (world_rows.cpp);
// what a read pays afterwards is BM_restore_after_changes.
void BM_direct_add_remove(benchmark::State& state) {
  const auto n = static_cast<std::uint32_t>(state.range(0));
  lockstep::World& w = structural_world(n);
  std::uint64_t i = 0;
  for (auto _ : state) {
    const lockstep::Entity e{scrambled(i++, n), 1};
    (void)w.addComponent(e, Hp{1, 1});
    (void)w.removeComponent<Hp>(e);
  }
  benchmark::DoNotOptimize(w.storage().archetype_count());
  state.SetItemsProcessed(state.iterations());
}

// What the next read pays after 1% of the entities made a scrambled add+remove: the restore of
// slot order (storage()), to compare with one each<Pos,Vel> pass over the same world.
void BM_restore_after_changes(benchmark::State& state) {
  const auto n = static_cast<std::uint32_t>(state.range(0));
  lockstep::World& w = structural_world(n);
  std::uint64_t i = 0;
  for (auto _ : state) {
    state.PauseTiming();
    for (std::uint32_t k = 0; k < n / 100; ++k) {
      const lockstep::Entity e{scrambled(i++, n), 1};
      (void)w.addComponent(e, Hp{1, 1});
      (void)w.removeComponent<Hp>(e);
    }
    state.ResumeTiming();
    benchmark::DoNotOptimize(w.storage().archetype_count());
  }
  state.SetItemsProcessed(state.iterations() * n);
}

// Issue 25: structural changes in game order. Every entity of an n-entity world makes one
// add+remove of Hp, in one scrambled order, and the next read (storage()) restores slot order;
// per entity, restore included. Worlds are kept per size (steady state across repetitions).
lockstep::World& scrambled_world(std::uint32_t n) {
  static std::unique_ptr<lockstep::World> worlds[3];
  std::unique_ptr<lockstep::World>& w = worlds[n <= 10000 ? 0 : n <= 100000 ? 1 : 2];
  if (!w) w = make_world(n);
  return *w;
}

void BM_direct_add_remove_all_restore(benchmark::State& state) {
  const auto n = static_cast<std::uint32_t>(state.range(0));
  lockstep::World& w = scrambled_world(n);
  for (auto _ : state) {
    for (std::uint32_t i = 0; i < n; ++i) {
      const lockstep::Entity e{scrambled(i, n), 1};
      (void)w.addComponent(e, Hp{1, 1});
      (void)w.removeComponent<Hp>(e);
    }
    benchmark::DoNotOptimize(w.storage().archetype_count());
  }
  state.SetItemsProcessed(state.iterations() * n);
}

// 1 % of the n entities, the next ones of the scrambled order from `i` on, gain Hp when they
// have none and lose it otherwise.
void toggle_hp(lockstep::World& w, std::uint32_t n, std::uint64_t& i) {
  for (std::uint32_t k = 0; k < n / 100; ++k) {
    const lockstep::Entity e{scrambled(i++, n), 1};
    if (w.has<Hp>(e)) (void)w.removeComponent<Hp>(e);
    else (void)w.addComponent(e, Hp{1, 1});
  }
}

// What the next read pays after 1% of the entities moved for good, in scrambled order (each
// gains Hp when it has none, loses it otherwise: rows leave one archetype and arrive out of
// order in another, which add+remove pairs never do once a removed row's hole can be refilled).
void BM_restore_after_moves(benchmark::State& state) {
  const auto n = static_cast<std::uint32_t>(state.range(0));
  lockstep::World& w = scrambled_world(n);
  std::uint64_t i = 0;
  for (auto _ : state) {
    state.PauseTiming();
    toggle_hp(w, n, i);
    state.ResumeTiming();
    benchmark::DoNotOptimize(w.storage().archetype_count());
  }
  state.SetItemsProcessed(state.iterations() * n);
}

// The same, both ways: half of the entities (every other slot) start with Hp, and each round
// 1% of them, in scrambled order, toggle it, so entities leave and arrive in both archetypes
// and each holds holes and an unsorted tail at the read (the units of two armies that gain and
// lose a buff). The restore then settles holes and tail of an archetype in one move per row.
void BM_restore_after_moves_both_ways(benchmark::State& state) {
  const auto n = static_cast<std::uint32_t>(state.range(0));
  auto w = make_world(n);
  for (std::uint32_t s = 1; s < n; s += 2) (void)w->addComponent(lockstep::Entity{s, 1}, Hp{1, 1});
  benchmark::DoNotOptimize(w->storage().archetype_count());
  std::uint64_t i = 0;
  for (auto _ : state) {
    state.PauseTiming();
    toggle_hp(*w, n, i);
    state.ResumeTiming();
    benchmark::DoNotOptimize(w->storage().archetype_count());
  }
  state.SetItemsProcessed(state.iterations() * n);
}

void BM_raw_add_remove(benchmark::State& state) {
  const auto n = static_cast<std::uint32_t>(state.range(0));
  RawTable a, b;
  a.pos.reserve(n), a.vel.reserve(n), a.slot.reserve(n);
  b.pos.reserve(n), b.vel.reserve(n), b.hp.reserve(n + 1), b.slot.reserve(n);
  std::vector<std::uint32_t> row(n), table(n, 0);
  for (std::uint32_t s = 0; s < n; ++s) {
    a.push(s, make_pos(s), make_vel(), nullptr);
    row[s] = s;
  }
  std::uint64_t i = 0;
  for (auto _ : state) {
    const std::uint32_t s = scrambled(i++, n);
    const Hp h{1, 1};
    std::uint32_t r = row[s];
    b.push(s, a.pos[r], a.vel[r], &h);
    a.swap_remove(r, row);
    row[s] = static_cast<std::uint32_t>(b.slot.size() - 1);
    r = row[s];
    a.push(s, b.pos[r], b.vel[r], nullptr);
    b.swap_remove(r, row);
    row[s] = static_cast<std::uint32_t>(a.slot.size() - 1);
    table[s] = 0;
    benchmark::DoNotOptimize(table.data());
  }
  state.SetItemsProcessed(state.iterations());
}

// Direct destroy of every entity of a 1M world, in scrambled order (restore included).
void BM_direct_destroy_any_order(benchmark::State& state) {
  const auto n = static_cast<std::uint32_t>(state.range(0));
  auto w = make_world(n);
  lockstep::Snapshot base(*w);
  w->save(base);
  std::vector<std::uint32_t> order(n);
  for (std::uint32_t i = 0; i < n; ++i) order[i] = i;
  for (std::uint32_t i = n; i > 1; --i) std::swap(order[i - 1], order[scrambled(i * 7919u, i)]);
  for (auto _ : state) {
    state.PauseTiming();
    (void)w->load(base);
    state.ResumeTiming();
    for (const std::uint32_t s : order) (void)w->destroy(lockstep::Entity{s, 1});
    benchmark::DoNotOptimize(w->storage().archetype_count());
  }
  state.SetItemsProcessed(state.iterations() * n);
}

void BM_raw_destroy_any_order(benchmark::State& state) {
  const auto n = static_cast<std::uint32_t>(state.range(0));
  std::vector<std::uint32_t> order(n);
  for (std::uint32_t i = 0; i < n; ++i) order[i] = i;
  for (std::uint32_t i = n; i > 1; --i) std::swap(order[i - 1], order[scrambled(i * 7919u, i)]);
  RawTable a;
  std::vector<std::uint32_t> row(n);
  for (auto _ : state) {
    state.PauseTiming();
    a = RawTable{};
    a.pos.reserve(n), a.vel.reserve(n), a.slot.reserve(n);
    for (std::uint32_t s = 0; s < n; ++s) {
      a.push(s, make_pos(s), make_vel(), nullptr);
      row[s] = s;
    }
    state.ResumeTiming();
    for (const std::uint32_t s : order) a.swap_remove(row[s], row);
    benchmark::DoNotOptimize(a.slot.data());
  }
  state.SetItemsProcessed(state.iterations() * n);
}

// Command buffer at 100k entities: create + 2 components, add+remove, destroy; each timed
// region records the commands, flushes and settles (storage()), per entity. Commands come in
// ascending slot order, as a system recording them inside each() produces them.
std::unique_ptr<lockstep::World> make_cb_world(std::uint32_t n) {
  lockstep::WorldConfig c;
  c.max_entities = n + 1024;
  c.command_capacity = 3 * n + 1024;
  c.command_bytes = c.command_capacity * 16u;
  auto w = std::make_unique<lockstep::World>(c);
  (void)w->registerComponent<Pos>();
  (void)w->registerComponent<Vel>();
  (void)w->registerComponent<Hp>();
  return w;
}

void BM_cb_create_2comps(benchmark::State& state) {
  const auto n = static_cast<std::uint32_t>(state.range(0));
  auto w = make_cb_world(n);
  lockstep::Snapshot empty(*w);
  w->save(empty);
  for (auto _ : state) {
    state.PauseTiming();
    (void)w->load(empty);
    state.ResumeTiming();
    lockstep::CommandBuffer& cb = w->commands();
    for (std::uint32_t i = 0; i < n; ++i) {
      const lockstep::Entity e = cb.create();
      (void)cb.addComponent(e, make_pos(i));
      (void)cb.addComponent(e, make_vel());
    }
    (void)w->flush();
    benchmark::DoNotOptimize(w->storage().archetype_count());
  }
  state.SetItemsProcessed(state.iterations() * n);
}

void BM_cb_add_remove(benchmark::State& state) {
  const auto n = static_cast<std::uint32_t>(state.range(0));
  auto w = make_cb_world(n);
  for (std::uint32_t i = 0; i < n; ++i) {
    const lockstep::Entity e = w->create();
    (void)w->addComponent(e, make_pos(i));
    (void)w->addComponent(e, make_vel());
  }
  for (auto _ : state) {
    lockstep::CommandBuffer& cb = w->commands();
    for (std::uint32_t i = 0; i < n; ++i) (void)cb.addComponent(lockstep::Entity{i, 1}, Hp{1, 1});
    (void)w->flush();
    for (std::uint32_t i = 0; i < n; ++i) (void)cb.removeComponent<Hp>(lockstep::Entity{i, 1});
    (void)w->flush();
    benchmark::DoNotOptimize(w->storage().archetype_count());
  }
  state.SetItemsProcessed(state.iterations() * n);
}

// The same add+remove through the command buffer, recorded in scrambled order (game order:
// units die in combat order, buffs expire by timer).
void BM_cb_add_remove_scrambled(benchmark::State& state) {
  const auto n = static_cast<std::uint32_t>(state.range(0));
  auto w = make_cb_world(n);
  for (std::uint32_t i = 0; i < n; ++i) {
    const lockstep::Entity e = w->create();
    (void)w->addComponent(e, make_pos(i));
    (void)w->addComponent(e, make_vel());
  }
  for (auto _ : state) {
    lockstep::CommandBuffer& cb = w->commands();
    for (std::uint32_t i = 0; i < n; ++i) (void)cb.addComponent(lockstep::Entity{scrambled(i, n), 1}, Hp{1, 1});
    (void)w->flush();
    for (std::uint32_t i = 0; i < n; ++i) (void)cb.removeComponent<Hp>(lockstep::Entity{scrambled(i + 7, n), 1});
    (void)w->flush();
    benchmark::DoNotOptimize(w->storage().archetype_count());
  }
  state.SetItemsProcessed(state.iterations() * n);
}

void BM_cb_destroy(benchmark::State& state) {
  const auto n = static_cast<std::uint32_t>(state.range(0));
  auto w = make_cb_world(n);
  for (std::uint32_t i = 0; i < n; ++i) {
    const lockstep::Entity e = w->create();
    (void)w->addComponent(e, make_pos(i));
    (void)w->addComponent(e, make_vel());
  }
  lockstep::Snapshot base(*w);
  w->save(base);
  for (auto _ : state) {
    state.PauseTiming();
    (void)w->load(base);
    state.ResumeTiming();
    lockstep::CommandBuffer& cb = w->commands();
    for (std::uint32_t i = 0; i < n; ++i) (void)cb.destroy(lockstep::Entity{i, 1});
    (void)w->flush();
    benchmark::DoNotOptimize(w->storage().archetype_count());
  }
  state.SetItemsProcessed(state.iterations() * n);
}

// The best raw loop: the same update over two plain 64-byte aligned arrays the compiler knows
// do not overlap (the fastest loop either compiler emits for it).
void BM_best_raw_pos_vel(benchmark::State& state) {
  RawPosVel raw(static_cast<std::size_t>(state.range(0)));
  for (auto _ : state) {
    raw.update();
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}

void BM_best_raw_pos_vel_i64(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  PosI* pos = static_cast<PosI*>(::operator new[](n * sizeof(PosI), std::align_val_t{64}));
  VelI* vel = static_cast<VelI*>(::operator new[](n * sizeof(VelI), std::align_val_t{64}));
  for (std::size_t i = 0; i < n; ++i) {
    pos[i] = PosI{static_cast<std::int64_t>(i), 0};
    vel[i] = VelI{1, 2};
  }
  auto update = [](PosI* __restrict p, const VelI* __restrict v, std::size_t count) {
    for (std::size_t i = 0; i < count; ++i) {
      p[i].x += v[i].x;
      p[i].y += v[i].y;
    }
  };
  for (auto _ : state) {
    update(pos, vel, n);
    benchmark::ClobberMemory();
  }
  ::operator delete[](pos, std::align_val_t{64});
  ::operator delete[](vel, std::align_val_t{64});
  state.SetItemsProcessed(state.iterations() * state.range(0));
}

BENCHMARK(BM_direct_add_remove)->Arg(10000)->Arg(1000000);
BENCHMARK(BM_raw_add_remove)->Arg(10000)->Arg(1000000);
BENCHMARK(BM_restore_after_changes)->Arg(10000)->Arg(1000000)->Iterations(30);
BENCHMARK(BM_restore_after_moves)->Arg(10000)->Arg(1000000)->Iterations(30);
BENCHMARK(BM_restore_after_moves_both_ways)->Arg(10000)->Arg(1000000)->Iterations(30);
BENCHMARK(BM_direct_add_remove_all_restore)->Arg(10000)->Arg(100000)->Arg(1000000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_direct_destroy_any_order)->Arg(1000000)->Unit(benchmark::kMillisecond)->Iterations(5);
BENCHMARK(BM_raw_destroy_any_order)->Arg(1000000)->Unit(benchmark::kMillisecond)->Iterations(5);
BENCHMARK(BM_cb_create_2comps)->Arg(100000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_cb_add_remove)->Arg(100000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_cb_add_remove_scrambled)->Arg(100000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_cb_destroy)->Arg(100000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_best_raw_pos_vel)->Arg(10000)->Arg(1000000);
BENCHMARK(BM_hand_loop_pos_vel)->Arg(10000);
BENCHMARK(BM_each_pos_vel)->Arg(10000);
BENCHMARK(BM_hand_loop_pos_vel)->Arg(1000000);
BENCHMARK(BM_each_pos_vel)->Arg(1000000);
BENCHMARK(BM_each_pos_vel_by_value)->Arg(10000)->Arg(1000000);
BENCHMARK(BM_best_raw_pos_vel_i64)->Arg(10000)->Arg(1000000);
BENCHMARK(BM_each_pos_vel_i64)->Arg(10000)->Arg(1000000);
BENCHMARK(BM_create_destroy);
BENCHMARK(BM_flush_1pct)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_direct_1pct)->Unit(benchmark::kMicrosecond);

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  lockstep_bench::RatioReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  std::printf("\nsummary (median CPU time per iteration)\n");
  for (const char* n : {"10000", "1000000"}) {
    const double each = reporter.ns(std::string("BM_each_pos_vel/") + n);
    const double hand = reporter.ns(std::string("BM_hand_loop_pos_vel/") + n);
    const double count = std::stod(n);
    if (each > 0 && hand > 0)
      std::printf("each<Pos,Vel> R/W %8s entities: %.3f ns/entity, hand loop %.3f ns/entity, ratio %.3f (target <= 1.10)\n",
                  n, each / count, hand / count, each / hand);
  }
  for (const char* n : {"10000", "1000000"}) {
    const double each = reporter.ns(std::string("BM_each_pos_vel/") + n);
    const double best = reporter.ns(std::string("BM_best_raw_pos_vel/") + n);
    const double count = std::stod(n);
    if (each > 0 && best > 0)
      std::printf("each<Pos,Vel> (fixed fields) R/W %8s entities vs best raw loop (restrict, aligned): %.3f vs %.3f ns/entity, ratio "
                  "%.3f (target <= 1.10)\n",
                  n, each / count, best / count, each / best);
  }
  for (const char* n : {"10000", "1000000"}) {
    const double each = reporter.ns(std::string("BM_each_pos_vel_by_value/") + n);
    const double best = reporter.ns(std::string("BM_best_raw_pos_vel/") + n);
    const double count = std::stod(n);
    if (each > 0 && best > 0)
      std::printf("each<Pos,Vel> (fixed fields, Vel by value) %8s entities vs best raw loop: %.3f vs %.3f ns/entity, "
                  "ratio %.3f (target <= 1.10)\n",
                  n, each / count, best / count, each / best);
  }
  for (const char* n : {"10000", "1000000"}) {
    const double each = reporter.ns(std::string("BM_each_pos_vel_i64/") + n);
    const double best = reporter.ns(std::string("BM_best_raw_pos_vel_i64/") + n);
    const double count = std::stod(n);
    if (each > 0 && best > 0)
      std::printf("each<PosI,VelI> (int64 fields) %8s entities vs best raw loop: %.3f vs %.3f ns/entity, ratio %.3f "
                  "(target <= 1.10)\n",
                  n, each / count, best / count, each / best);
  }
  for (const char* n : {"10000", "1000000"}) {
    const double k = reporter.ns(std::string("BM_direct_add_remove/") + n);
    const double raw = reporter.ns(std::string("BM_raw_add_remove/") + n);
    if (k > 0)
      std::printf("direct add+remove %8s entities: %.1f ns per entity (target <= %s), raw swap-remove SoA %.1f ns, "
                  "ratio %.2f\n",
                  n, k, std::string(n) == "10000" ? "150" : "250", raw, raw > 0 ? k / raw : 0.0);
  }
  for (const char* n : {"10000", "1000000"}) {
    const double restore = reporter.ns(std::string("BM_restore_after_changes/") + n + "/iterations:30");
    const double moves = reporter.ns(std::string("BM_restore_after_moves/") + n + "/iterations:30");
    const double each = reporter.ns(std::string("BM_each_pos_vel/") + n);
    if (restore > 0 && each > 0)
      std::printf("restore of slot order after 1%% scrambled add+remove, %8s entities: %.1f us, %.2f x one "
                  "each<Pos,Vel> pass (target <= 1)\n",
                  n, restore / 1e3, restore / each);
    if (moves > 0 && each > 0)
      std::printf("restore of slot order after 1%% scrambled moves, %8s entities: %.1f us, %.2f x one each<Pos,Vel> "
                  "pass\n",
                  n, moves / 1e3, moves / each);
  }
  for (const char* n : {"10000", "100000", "1000000"}) {
    const double k = reporter.ns(std::string("BM_direct_add_remove_all_restore/") + n) / std::stod(n);
    if (k > 0)
      std::printf("direct add+remove, all %s entities in scrambled order, restore included: %.1f ns per entity%s\n", n,
                  k, std::string(n) == "100000" ? " (target <= 250)" : std::string(n) == "1000000" ? " (target <= 400)" : "");
  }
  {
    const double k = reporter.ns("BM_direct_destroy_any_order/1000000/iterations:5") / 1e6;
    const double raw = reporter.ns("BM_raw_destroy_any_order/1000000/iterations:5") / 1e6;
    if (k > 0)
      std::printf("direct destroy, scrambled order, 1M: %.1f ns per entity (target <= 150), raw swap-remove %.1f ns, "
                  "ratio %.2f\n",
                  k, raw, raw > 0 ? k / raw : 0.0);
  }
  for (const char* name : {"BM_cb_create_2comps", "BM_cb_add_remove", "BM_cb_add_remove_scrambled", "BM_cb_destroy"}) {
    const double k = reporter.ns(std::string(name) + "/100000") / 1e5;
    if (k > 0) std::printf("%s at 100k: %.1f ns per entity (record + flush + restore)\n", name, k);
  }
  const double cd = reporter.ns("BM_create_destroy");
  if (cd > 0) std::printf("create+destroy: %.1f ns per pair, %.2f M pairs/s\n", cd / 1000, 1000 / cd * 1e3);
  const double fl = reporter.ns("BM_flush_1pct");
  const double di = reporter.ns("BM_direct_1pct");
  if (fl > 0 && di > 0)
    std::printf("1%% structural changes at 100k (1000 adds + 1000 destroys): flush %.0f us, direct calls %.0f us, "
                "flush/direct %.3f\n",
                fl / 1e3, di / 1e3, fl / di);
  benchmark::Shutdown();
  return 0;
}
