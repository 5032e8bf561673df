// Model-based property test of views (view.h, docs/query.md "Views"): random sequences of
// create / destroy / add / remove / set / getMutable / Write loops / enable bits / buffered
// batches + flush / save / load / update on a world with three views. After every update
// each view's Added / Removed / Modified lists and member count must equal a naive reference
// recomputed from scratch through the public API (alive, has, isEnabled, get) — membership by
// the view's definition written out by hand, Modified by comparing the watched components'
// presence, enable bit and bytes with the reference's own copy from the previous update.
// save/load restores the reference together with the world.
#include "support/kernel_types.h"

#include <lockstep/query/view.h>

#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <array>
#include <cstring>
#include <map>
#include <optional>
#include <vector>

using namespace lockstep;
using namespace lockstep_test;

namespace {

// Watched-state record of one entity for one view: per watched component (has, enabled, bytes).
using Record = std::vector<std::uint8_t>;
struct Member {
  std::uint32_t generation;
  Record record;
};
using Members = std::map<std::uint32_t, Member>;  // slot -> member (ascending slots)

template <class T>
void put(Record& r, const World& w, Entity e) {
  const T* v = w.get<T>(e);
  r.push_back(v != nullptr ? 1 : 0);
  r.push_back(v != nullptr && w.isEnabled<T>(e) ? 1 : 0);
  std::array<std::uint8_t, sizeof(T)> bytes{};
  if (v != nullptr) std::memcpy(bytes.data(), v, sizeof(T));
  r.insert(r.end(), bytes.begin(), bytes.end());
}

// The three views, written out by hand.
//  V0: CachedQuery<read<Health>> where Health.hp < 5            watched: Health
//  V1: Dynamic read Pos, opt Vel, without Flag                   watched: Pos, Vel
//  V2: CachedQuery<read<Pos>, with<Health>> where Pos.x == 1 || !(Health.hp < 3)
//                                                                watched: Pos, Health
std::optional<Record> reference(int view, const World& w, Entity e) {
  const Pos* p = w.get<Pos>(e);
  const Health* h = w.get<Health>(e);
  const bool pos_on = p != nullptr && w.isEnabled<Pos>(e);
  const bool health_on = h != nullptr && w.isEnabled<Health>(e);
  Record r;
  if (view == 0) {
    if (!health_on || h->hp >= 5) return std::nullopt;
    put<Health>(r, w, e);
  } else if (view == 1) {
    if (!pos_on || w.has<Flag>(e)) return std::nullopt;
    put<Pos>(r, w, e);
    put<Vel>(r, w, e);
  } else {
    if (!pos_on || !health_on || !(p->x == 1 || !(h->hp < 3))) return std::nullopt;
    put<Pos>(r, w, e);
    put<Health>(r, w, e);
  }
  return r;
}

Members current(int view, const World& w) {
  Members m;
  (void)w.each<>([&](Entity e) {
    if (auto r = reference(view, w, e)) m[e.slot] = Member{e.generation, *r};
  });
  return m;
}

struct Deltas {
  std::vector<Entity> added, removed, modified;
  std::uint32_t members = 0;
};

Deltas diff(const Members& last, const Members& now) {
  Deltas d;
  for (std::uint32_t slot = 0; slot < 64; ++slot) {
    const auto a = last.find(slot), b = now.find(slot);
    const bool was = a != last.end(), is = b != now.end();
    if (was && (!is || b->second.generation != a->second.generation)) d.removed.push_back({slot, a->second.generation});
    if (is && (!was || b->second.generation != a->second.generation)) d.added.push_back({slot, b->second.generation});
    if (was && is && a->second.generation == b->second.generation && a->second.record != b->second.record)
      d.modified.push_back({slot, b->second.generation});
  }
  d.members = static_cast<std::uint32_t>(now.size());
  return d;
}

Deltas read(const World& w, ViewId v) {
  ViewDeltas d;
  RC_ASSERT(viewDeltas(w, v, d).ok());
  return {std::vector<Entity>(d.added.begin(), d.added.end()), std::vector<Entity>(d.removed.begin(), d.removed.end()),
          std::vector<Entity>(d.modified.begin(), d.modified.end()), d.members};
}

void expect_equal(const Deltas& got, const Deltas& want) {
  RC_ASSERT(got.added == want.added);
  RC_ASSERT(got.removed == want.removed);
  RC_ASSERT(got.modified == want.modified);
  RC_ASSERT(got.members == want.members);
}

// Uniform in [lo, hi) whatever RapidCheck's current size: inRange scales its range with the
// size, which would keep the later ops (and the updates) out of most runs.
int uniform(int lo, int hi) { return *rc::gen::resize(100, rc::gen::inRange(lo, hi)); }

struct Model {
  std::array<Members, 3> last;
  std::array<Deltas, 3> lists;
};

}  // namespace

RC_GTEST_PROP(ViewModel, DeltasMatchANaiveRecomputation, ()) {
  WorldConfig config;
  config.max_entities = 40;
  World w(config);
  register_all(w);
  w.setGuardPolicy(GuardPolicy::Reject);
  CachedQuery<term::read<Health>> q0;
  DynamicQuery q1;
  RC_ASSERT(QueryBuilder(w).read("Pos").optRead("Vel").without("Flag").build(q1).ok());
  CachedQuery<term::read<Pos>, term::with<Health>> q2;
  std::array<ViewId, 3> views;
  RC_ASSERT(registerView(w, q0, field(&Health::hp) < 5, views[0]).ok());
  RC_ASSERT(registerView(w, q1, views[1]).ok());
  RC_ASSERT(registerView(w, q2, field(&Pos::x) == 1 || !(field(&Health::hp) < 3), views[2]).ok());

  Model model;
  Snapshot snap(w);
  std::optional<Model> saved;
  std::vector<Entity> handles;
  auto pick = [&]() {
    return handles.empty() ? Entity::null() : handles[static_cast<std::size_t>(uniform(0, static_cast<int>(handles.size())))];
  };
  auto small = [](int hi) { return uniform(0, hi); };
  const int steps = *rc::gen::inRange(1, 120);
  for (int step = 0; step < steps; ++step) {
    const int op = uniform(0, 14);
    const Entity e = pick();
    switch (op) {
      case 0: {
        const Entity n = w.create();
        if (!n.is_null()) handles.push_back(n);
        break;
      }
      case 1: (void)w.destroy(e); break;
      case 2: (void)w.addComponent(e, Health{small(8), small(2)}); break;
      case 3: (void)w.addComponent(e, Pos{small(3), 0}); break;
      case 4: {
        const int c = small(3);
        if (c == 0) (void)w.addComponent(e, Vel{small(2), 0});
        else if (c == 1) (void)w.addComponent(e, Flag{true});
        else (void)w.removeComponent<Flag>(e);
        break;
      }
      case 5: {
        const int c = small(3);
        if (c == 0) (void)w.removeComponent<Health>(e);
        else if (c == 1) (void)w.removeComponent<Pos>(e);
        else (void)w.removeComponent<Vel>(e);
        break;
      }
      case 6: {  // single-entity writes, sometimes of the same value
        if (Health* h = w.getMutable<Health>(e)) h->hp = small(8);
        if (Pos* p = w.getMutable<Pos>(e); p != nullptr && small(2) == 0) p->x = small(3);
        break;
      }
      case 7: {  // a column-wide Write loop changing some rows
        const int which = small(3);
        if (which == 0)
          (void)w.each<Health>([&](Entity x, Health& h) { if ((x.slot + step) % 3 == 0) h.hp = (h.hp + 1) % 8; }, Write{});
        else if (which == 1)
          (void)w.each<Pos>([&](Entity x, Pos& p) { if (x.slot % 2 == 0) p.x = (p.x + 1) % 3; }, Write{});
        else
          (void)w.each<Vel>([](Entity, Vel&) {}, Write{});  // hands out, writes nothing
        break;
      }
      case 8: {
        const bool on = small(2) == 0;
        const int c = small(3);
        if (c == 0) (void)w.setEnabled<Health>(e, on);
        else if (c == 1) (void)w.setEnabled<Pos>(e, on);
        else (void)w.setEnabled<Vel>(e, on);
        break;
      }
      case 9: {  // buffered batch + flush
        CommandBuffer& b = w.commands();
        std::vector<Entity> pending;
        const int n = uniform(1, 8);
        for (int k = 0; k < n; ++k) {
          const bool use_pending = !pending.empty() && small(2) == 0;
          const Entity t = use_pending ? pending[static_cast<std::size_t>(uniform(0, static_cast<int>(pending.size())))] : pick();
          switch (small(5)) {
            case 0: {
              const Entity p = b.create();
              if (!p.is_null()) pending.push_back(p);
              break;
            }
            case 1: if (!t.is_null()) (void)b.addComponent(t, Health{small(8), 0}); break;
            case 2: if (!t.is_null()) (void)b.addComponent(t, Pos{small(3), 0}); break;
            case 3: if (!t.is_null()) (void)b.removeComponent<Health>(t); break;
            default: if (!t.is_null()) (void)b.destroy(t); break;
          }
        }
        if (w.flush().ok()) {
          // Buffered creates got real handles: collect every live entity as a candidate.
          handles.clear();
          (void)w.each<>([&](Entity x) { handles.push_back(x); });
        } else {
          w.commands().clear();
        }
        break;
      }
      case 10: {
        w.save(snap);
        saved = model;
        break;
      }
      case 11: {
        if (!saved) break;
        RC_ASSERT(w.load(snap).ok());
        model = *saved;
        for (int v = 0; v < 3; ++v) expect_equal(read(w, views[v]), model.lists[v]);  // the lists come back
        break;
      }
      default: {
        RC_ASSERT(w.updateViews().ok());
        for (int v = 0; v < 3; ++v) {
          const Members now = current(v, w);
          model.lists[v] = diff(model.last[v], now);
          model.last[v] = now;
          expect_equal(read(w, views[v]), model.lists[v]);
          for (const auto& [slot, m] : now) RC_ASSERT(viewContains(w, views[v], Entity{slot, m.generation}));
        }
        break;
      }
    }
  }
  RC_ASSERT(w.updateViews().ok());
  for (int v = 0; v < 3; ++v) {
    const Members now = current(v, w);
    expect_equal(read(w, views[v]), diff(model.last[v], now));
  }
}
