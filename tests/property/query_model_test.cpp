// Model-based property test of the query layer (docs/kernel.md, "Queries II"): random worlds
// (components added/removed/disabled/written at random ticks, entities destroyed) and random
// run-time queries with all / any / none / optional / OR / enabled / disabled / added /
// changed terms, checked against a naive reference that scans every entity of a plain model.
// The visit sequence (archetype id, then slot), the optional pointers and the values handed
// out must be equal; queries are held across mutations and a snapshot load to exercise the
// incremental and rebuilt match sets. A fixed typed query is checked against its dynamic twin.
#include "support/kernel_types.h"

#include <lockstep/query/cached_query.h>
#include <lockstep/query/dynamic_query.h>

#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <map>
#include <tuple>
#include <vector>

using namespace lockstep;
using namespace lockstep_test;

namespace {

constexpr std::uint32_t kC = 4;  // Pos 0, Vel 1, Health 2, Flag 3 (Link 4 unused)
constexpr bool kTracked[kC] = {true, false, true, false};

struct ModelEntity {
  Entity handle;
  std::array<bool, kC> has{};
  std::array<bool, kC> off{};
  std::array<std::int64_t, kC> value{};
  std::array<std::uint64_t, kC> added{};
  std::array<std::uint64_t, kC> changed{};
};
using Model = std::map<std::uint32_t, ModelEntity>;  // slot -> live entity

std::vector<std::byte> encode(std::uint32_t c, std::int64_t v) {
  std::vector<std::byte> out;
  auto put = [&](const auto& x) {
    out.resize(sizeof x);
    std::memcpy(out.data(), &x, sizeof x);
  };
  switch (c) {
    case 0: put(Pos{v, -v}); break;
    case 1: put(Vel{v, 2 * v}); break;
    case 2: put(Health{static_cast<std::int32_t>(v), 100}); break;
    default: put(Flag{(v & 1) != 0}); break;
  }
  return out;
}

Status add(World& w, Entity e, std::uint32_t c, std::int64_t v) {
  switch (c) {
    case 0: return w.addComponent(e, Pos{v, -v});
    case 1: return w.addComponent(e, Vel{v, 2 * v});
    case 2: return w.addComponent(e, Health{static_cast<std::int32_t>(v), 100});
    default: return w.addComponent(e, Flag{(v & 1) != 0});
  }
}

struct RandomQuery {
  std::array<int, kC> fetch{};  // 0 none, 1 read, 2 write, 3 opt read
  std::array<bool, kC> with{}, without{}, enabled{}, disabled{}, added{}, changed{};
  std::vector<std::vector<std::uint32_t>> anys;
  std::vector<std::pair<std::array<bool, kC>, std::array<bool, kC>>> alts;  // OR group (with, without)
  std::uint64_t since = 0;
  std::uint32_t fetch_order[kC] = {0, 1, 2, 3};
};

RandomQuery gen_query(std::uint64_t max_tick) {
  RandomQuery q;
  for (std::uint32_t c = 0; c < kC; ++c) {
    q.fetch[c] = *rc::gen::weightedElement<int>({{4, 0}, {2, 1}, {1, 2}, {2, 3}});
    const int role = *rc::gen::weightedElement<int>({{10, 0}, {2, 1}, {2, 2}, {1, 3}, {1, 4}, {1, 5}, {1, 6}});
    if (role == 1) q.with[c] = true;
    if (role == 2 && q.fetch[c] != 1 && q.fetch[c] != 2) q.without[c] = true;
    if (role == 3) q.enabled[c] = true;
    if (role == 4) q.disabled[c] = true;
    if (role == 5 && kTracked[c]) q.added[c] = true;
    if (role == 6 && kTracked[c]) q.changed[c] = true;
  }
  const int any_count = *rc::gen::inRange(0, 4);
  for (int k = 0; k < any_count; ++k) {
    std::vector<std::uint32_t> ids;
    const int n = *rc::gen::inRange(1, 5);
    for (int i = 0; i < n; ++i) ids.push_back(*rc::gen::inRange<std::uint32_t>(0, kC));
    q.anys.push_back(ids);
  }
  const int alt_count = *rc::gen::inRange(0, 4);
  for (int k = 0; k < alt_count; ++k) {
    std::array<bool, kC> aw{}, an{};
    for (std::uint32_t c = 0; c < kC; ++c) {
      const int r = *rc::gen::inRange(0, 5);
      aw[c] = r == 0;
      an[c] = r == 1;
    }
    q.alts.emplace_back(aw, an);
  }
  q.since = *rc::gen::inRange<std::uint64_t>(0, max_tick + 2);
  const int permutation = *rc::gen::inRange(0, 24);  // the order fetch terms are listed in
  for (int k = 0; k < permutation; ++k) std::next_permutation(q.fetch_order, q.fetch_order + kC);
  return q;
}

std::uint64_t branch_product(const RandomQuery& q) {
  std::uint64_t p = 1;
  for (const auto& a : q.anys) p *= a.size();
  if (!q.alts.empty()) p *= q.alts.size();
  return p;
}

Status build(const World& w, const RandomQuery& q, DynamicQuery& out) {
  QueryBuilder b(w);
  for (std::uint32_t i = 0; i < kC; ++i) {
    const std::uint32_t c = q.fetch_order[i];
    if (q.fetch[c] == 1) b.read(c);
    if (q.fetch[c] == 2) b.write(c);
    if (q.fetch[c] == 3) b.optRead(c);
  }
  for (std::uint32_t c = 0; c < kC; ++c) {
    if (q.with[c]) b.with(c);
    if (q.without[c]) b.without(c);
    if (q.enabled[c]) b.enabled(c);
    if (q.disabled[c]) b.disabled(c);
    if (q.added[c]) b.added(c);
    if (q.changed[c]) b.changed(c);
  }
  for (const auto& a : q.anys) {
    std::uint32_t ids[4] = {};
    for (std::size_t i = 0; i < a.size(); ++i) ids[i] = a[i];
    switch (a.size()) {
      case 1: b.any({ids[0]}); break;
      case 2: b.any({ids[0], ids[1]}); break;
      case 3: b.any({ids[0], ids[1], ids[2]}); break;
      default: b.any({ids[0], ids[1], ids[2], ids[3]}); break;
    }
  }
  if (!q.alts.empty()) {
    b.beginOr();
    for (std::size_t k = 0; k < q.alts.size(); ++k) {
      if (k != 0) b.orElse();
      for (std::uint32_t c = 0; c < kC; ++c) {
        if (q.alts[k].first[c]) b.with(c);
        if (q.alts[k].second[c]) b.without(c);
      }
    }
    b.endOr();
  }
  out.since(q.since);
  return b.build(out);
}

struct Visit {
  std::uint32_t slot;
  std::vector<std::vector<std::byte>> values;  // per fetch in build order; empty = null
  friend bool operator==(const Visit&, const Visit&) = default;
};

std::vector<Visit> reference(const World& w, const Model& m, const RandomQuery& q) {
  // Archetype id of each live slot, from the storage view (the order key, not the match).
  std::map<std::uint32_t, std::uint32_t> arch;
  const StorageView v = w.storage();
  for (std::uint32_t a = 0; a < v.archetype_count(); ++a)
    for (std::uint32_t s : v.archetype_slots(a)) arch[s] = a;
  std::vector<std::tuple<std::uint32_t, std::uint32_t, Visit>> hits;
  for (const auto& [slot, e] : m) {
    bool ok = true;
    for (std::uint32_t c = 0; c < kC && ok; ++c) {
      const bool required = q.fetch[c] == 1 || q.fetch[c] == 2 || q.with[c] || q.enabled[c] || q.disabled[c] ||
                            q.added[c] || q.changed[c];
      if (required && !e.has[c]) ok = false;
      else if (required && q.disabled[c] && !e.off[c]) ok = false;
      else if (required && !q.disabled[c] && e.off[c]) ok = false;
      if (q.without[c] && e.has[c]) ok = false;
      if (q.added[c] && e.has[c] && e.added[c] < q.since) ok = false;
      if (q.changed[c] && e.has[c] && e.changed[c] < q.since) ok = false;
    }
    for (const auto& a : q.anys) {
      bool one = false;
      for (std::uint32_t c : a) one = one || e.has[c];
      ok = ok && one;
    }
    if (!q.alts.empty()) {
      bool one = false;
      for (const auto& [aw, an] : q.alts) {
        bool holds = true;
        for (std::uint32_t c = 0; c < kC; ++c) holds = holds && (!aw[c] || e.has[c]) && (!an[c] || !e.has[c]);
        one = one || holds;
      }
      ok = ok && one;
    }
    if (!ok) continue;
    Visit visit{slot, {}};
    for (std::uint32_t i = 0; i < kC; ++i) {
      const std::uint32_t c = q.fetch_order[i];
      if (q.fetch[c] == 0) continue;
      const bool present = e.has[c] && (!e.off[c] || q.disabled[c]);
      visit.values.push_back(present ? encode(c, e.value[c]) : std::vector<std::byte>{});
    }
    hits.emplace_back(arch.at(slot), slot, visit);
  }
  std::sort(hits.begin(), hits.end(),
            [](const auto& x, const auto& y) { return std::tie(std::get<0>(x), std::get<1>(x)) < std::tie(std::get<0>(y), std::get<1>(y)); });
  std::vector<Visit> out;
  for (auto& h : hits) out.push_back(std::get<2>(h));
  return out;
}

// The world's row state agrees with the model for every live entity and component.
void check_row_state(const World& w, const Model& m);

// Runs q both ways — per row (each) and by runs (eachChunk), in a random order — and checks
// that they visit the same rows with the same values and absences, and that the first of the
// two alone stamped exactly the handed-out rows (the second restamps them at the same tick).
std::vector<Visit> run(World& w, Model& m, DynamicQuery& dq, const RandomQuery& q) {
  auto by_rows = [&] {
    std::vector<Visit> got;
    const Status s = dq.each(w, [&](const DynamicRow& row) {
      Visit visit{row.entity().slot, {}};
      for (std::uint32_t k = 0; k < row.size(); ++k) {
        const std::byte* p = row.read(k);
        visit.values.push_back(p == nullptr ? std::vector<std::byte>{}
                                            : std::vector<std::byte>(p, p + row.descriptor(k).size));
      }
      got.push_back(visit);
    });
    RC_ASSERT(s.ok());
    return got;
  };
  auto by_runs = [&] {
    std::vector<Visit> got;
    std::uint32_t last_archetype = 0;
    const Status s = dq.eachChunk(w, [&](const DynamicChunk& chunk) {
      RC_ASSERT(chunk.size() > 0u);
      RC_ASSERT(chunk.archetype() >= last_archetype);
      last_archetype = chunk.archetype();
      for (std::uint32_t i = 0; i < chunk.size(); ++i) {
        Visit visit{chunk.entity(i).slot, {}};
        RC_ASSERT(w.alive(chunk.entity(i)));
        for (std::uint32_t k = 0; k < chunk.fetchCount(); ++k) {
          const std::byte* base = chunk.read(k);
          const std::byte* p = base == nullptr ? nullptr : base + i * chunk.stride(k);
          visit.values.push_back(p == nullptr ? std::vector<std::byte>{}
                                              : std::vector<std::byte>(p, p + chunk.descriptor(k).size));
        }
        got.push_back(visit);
      }
    });
    RC_ASSERT(s.ok());
    return got;
  };
  auto stamp_model = [&](const std::vector<Visit>& got) {
    for (const Visit& visit : got) {
      std::uint32_t k = 0;
      for (std::uint32_t i = 0; i < kC; ++i) {
        const std::uint32_t c = q.fetch_order[i];
        if (q.fetch[c] == 0) continue;
        if (q.fetch[c] == 2 && kTracked[c] && !visit.values[k].empty()) m[visit.slot].changed[c] = w.tick();
        ++k;
      }
    }
  };
  const bool runs_first = *rc::gen::arbitrary<bool>();
  const std::vector<Visit> first = runs_first ? by_runs() : by_rows();
  stamp_model(first);
  check_row_state(w, m);
  const std::vector<Visit> second = runs_first ? by_rows() : by_runs();
  RC_ASSERT(first == second);
  return first;
}

// The world's row state agrees with the model for every live entity and component.
void check_row_state(const World& w, const Model& m) {
  for (const auto& [slot, e] : m) {
    for (std::uint32_t c = 0; c < kC; ++c) {
      RC_ASSERT(w.is_enabled(e.handle, c) == (e.has[c] && !e.off[c]));
      std::uint64_t added = 0, changed = 0;
      const bool tracked = w.change_ticks(e.handle, c, added, changed);
      RC_ASSERT(tracked == (kTracked[c] && e.has[c]));
      if (tracked) {
        RC_ASSERT(added == e.added[c]);
        RC_ASSERT(changed == e.changed[c]);
      }
    }
  }
}

void random_ops(World& w, Model& m, int count) {
  for (int i = 0; i < count; ++i) {
    const int op = *rc::gen::weightedElement<int>({{3, 0}, {8, 1}, {2, 2}, {3, 3}, {1, 4}, {2, 5}, {2, 6}});
    std::vector<std::uint32_t> live;
    for (const auto& [slot, e] : m) live.push_back(slot);
    if (op == 0 || live.empty()) {
      const Entity e = w.create();
      RC_ASSERT(!e.is_null());
      m[e.slot] = ModelEntity{e, {}, {}, {}, {}, {}};
      continue;
    }
    ModelEntity& e = m[*rc::gen::elementOf(live)];
    const auto c = *rc::gen::inRange<std::uint32_t>(0, kC);
    switch (op) {
      case 1: {
        const auto value = *rc::gen::inRange<std::int64_t>(-1000, 1000);
        RC_ASSERT(add(w, e.handle, c, value).ok());
        if (!e.has[c]) {
          e.added[c] = w.tick();
          e.off[c] = false;
        }
        e.changed[c] = w.tick();
        e.has[c] = true;
        e.value[c] = value;
        break;
      }
      case 2:
        if (e.has[c]) {
          RC_ASSERT(w.remove_id(e.handle, c).ok());
          e.has[c] = false;
          e.off[c] = false;
        }
        break;
      case 3:
        if (e.has[c]) {
          const bool on = *rc::gen::arbitrary<bool>();
          RC_ASSERT(w.set_enabled(e.handle, c, on).ok());
          e.off[c] = !on;
        }
        break;
      case 4: {
        const std::uint32_t slot = e.handle.slot;
        RC_ASSERT(w.destroy(e.handle).ok());
        m.erase(slot);
        break;
      }
      case 5:
        w.advanceTick();
        break;
      default:
        if (e.has[c]) {
          RC_ASSERT(w.get_bytes_mutable(e.handle, c) != nullptr);
          e.changed[c] = w.tick();
        }
        break;
    }
  }
}

WorldConfig config() {
  WorldConfig c;
  c.max_entities = 256;
  c.max_tracked_components = 2;
  return c;
}

}  // namespace

RC_GTEST_PROP(query_model, DynamicQueriesMatchANaiveScan, ()) {
  World w(config());
  register_all(w);
  RC_ASSERT(w.trackChanges<Pos>().ok());
  RC_ASSERT(w.trackChanges<Health>().ok());
  Model m;
  random_ops(w, m, *rc::gen::inRange(0, 60));

  const RandomQuery q = gen_query(w.tick());
  DynamicQuery dq;
  const Status built = build(w, q, dq);
  if (branch_product(q) > kMaxQueryBranches) {
    RC_ASSERT(built.code() == ErrorCode::InvalidArgument);
    return;
  }
  RC_ASSERT(built.ok());
  {
    const std::vector<Visit> expected = reference(w, m, q);
    RC_ASSERT(run(w, m, dq, q) == expected);
    check_row_state(w, m);
  }

  // Held across more mutations (new archetypes: incremental), then across a load (rebuild).
  Snapshot snap(w);
  w.save(snap);
  const Model saved = m;
  random_ops(w, m, *rc::gen::inRange(0, 40));
  {
    const std::vector<Visit> expected = reference(w, m, q);
    RC_ASSERT(run(w, m, dq, q) == expected);
    check_row_state(w, m);
  }
  // A pass that writes every tracked component it can reach, a tick later: its stamps must
  // land exactly on the handed-out rows.
  w.advanceTick();
  RandomQuery writer;
  writer.fetch = {2, 3, 3, 3};
  DynamicQuery wq;
  RC_ASSERT(build(w, writer, wq).ok());
  const std::vector<Visit> written = reference(w, m, writer);
  RC_ASSERT(run(w, m, wq, writer) == written);
  check_row_state(w, m);
  RandomQuery healer;
  healer.fetch = {3, 0, 2, 0};
  DynamicQuery hq;
  RC_ASSERT(build(w, healer, hq).ok());
  const std::vector<Visit> healed = reference(w, m, healer);
  RC_ASSERT(run(w, m, hq, healer) == healed);
  check_row_state(w, m);

  RC_ASSERT(w.load(snap).ok());
  m = saved;
  {
    const std::vector<Visit> expected = reference(w, m, q);
    RC_ASSERT(run(w, m, dq, q) == expected);
    check_row_state(w, m);
  }
  RC_ASSERT(w.checkInvariants().ok());
}

RC_GTEST_PROP(query_model, TypedQueryEqualsItsDynamicTwin, ()) {
  World w(config());
  register_all(w);
  RC_ASSERT(w.trackChanges<Pos>().ok());
  RC_ASSERT(w.trackChanges<Health>().ok());
  Model m;
  random_ops(w, m, *rc::gen::inRange(0, 80));
  const auto since = *rc::gen::inRange<std::uint64_t>(0, w.tick() + 2);

  CachedQuery<term::read<Pos>, term::opt_read<Vel>, term::none<Flag>, term::any<Vel, Health>,
              term::or_<term::with<Health>, term::all_of<term::with<Vel>, term::none<Health>>>, term::changed<Pos>>
      typed;
  typed.since(since);
  DynamicQuery dyn;
  RC_ASSERT(QueryBuilder(w)
                .read("Pos")
                .optRead("Vel")
                .without("Flag")
                .any({"Vel", "Health"})
                .beginOr()
                .with("Health")
                .orElse()
                .with("Vel")
                .without("Health")
                .endOr()
                .changed("Pos")
                .build(dyn)
                .ok());
  dyn.since(since);
  std::vector<std::tuple<std::uint32_t, std::int64_t, bool>> a, b;
  RC_ASSERT(typed.each(w, [&](Entity e, const Pos& p, const Vel* v) { a.emplace_back(e.slot, p.x, v != nullptr); }).ok());
  RC_ASSERT(dyn.each(w, [&](const DynamicRow& r) {
                 Pos p;
                 std::memcpy(&p, r.read(0), sizeof p);
                 b.emplace_back(r.entity().slot, p.x, r.read(1) != nullptr);
               }).ok());
  RC_ASSERT(a == b);
  std::vector<std::tuple<std::uint32_t, std::int64_t, bool>> c;
  RC_ASSERT(typed
                .eachChunk(w,
                           [&](const QueryChunk& run, const Pos* p, const Vel* v) {
                             for (std::uint32_t i = 0; i < run.size(); ++i) c.emplace_back(run.entity(i).slot, p[i].x, v != nullptr);
                           })
                .ok());
  RC_ASSERT(a == c);
}
