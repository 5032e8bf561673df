// Field predicates (predicate.h) and their evaluation over queries (query_where.h): typed and
// dynamic forms give the same atoms; exact constants; paths and their errors; the DNF cap.
#include "predicate_types.h"

#include <lockstep/query/where.h>

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

using namespace lockstep;
using namespace lockstep_test;

namespace {

struct Fixture {
  World world;
  std::vector<Entity> units;
  Fixture() {
    world.setGuardPolicy(GuardPolicy::Reject);  // the guard test expects a Status, not a debug abort
    EXPECT_TRUE(world.registerComponent<Unit>().ok());
    EXPECT_TRUE(world.registerComponent<Score>().ok());
    EXPECT_TRUE(world.registerComponent<Big>().ok());
    for (int i = 0; i < 200; ++i) {
      const Entity e = world.create();
      Unit u{};
      u.hp = fixed::from_raw(std::int64_t{i - 100} * 6553);  // around ±10, crossing 0.1
      u.pos = vec2{fixed::from_int(i % 17 - 8), fixed::from_int(i % 13 - 6)};
      u.target = Entity{static_cast<std::uint32_t>(i % 5), static_cast<std::uint32_t>(1 + i % 2)};
      u.ammo[0] = i;
      u.ammo[1] = -i;
      u.owner = static_cast<std::uint8_t>(i % 4);
      u.kind = static_cast<UnitKind>(i % 3);
      u.alive = i % 7 != 0;
      u.level = static_cast<std::int16_t>(i * 37 % 101 - 50);
      if (i % 10 != 3) {
        EXPECT_TRUE(world.addComponent(e, u).ok());
      }
      if (i % 3 == 0) {
        Score s{};
        for (int p = 0; p < 3; ++p) s.players[p] = Stats{i % (p + 2), p};
        EXPECT_TRUE(world.addComponent(e, s).ok());
      }
      units.push_back(e);
    }
  }
};

// Entities visited by each_where over a query fetching nothing but Unit (optional) + the predicate.
std::vector<std::uint32_t> slots_where(World& w, const Predicate& p) {
  CachedQuery<term::opt_read<Unit>> q;
  std::vector<std::uint32_t> out;
  const Status s = each_where(q, w, p, [&](Entity e, const Unit*) { out.push_back(e.slot); });
  EXPECT_TRUE(s.ok()) << s.message();
  return out;
}

template <class F>
std::vector<std::uint32_t> slots_naive(World& w, const std::vector<Entity>& all, F&& f) {
  std::vector<std::uint32_t> out;
  for (Entity e : all) {
    const Unit* u = w.get<Unit>(e);
    const Score* s = w.get<Score>(e);
    if (f(u, s)) out.push_back(e.slot);
  }
  return out;
}

Predicate dyn(World& w, const char* path, CompareOp op, const char* lit) {
  Predicate p;
  PredicateError err;
  const Status s = compare(w, path, op, lit, p, &err);
  EXPECT_TRUE(s.ok()) << path << " " << lit << ": " << err.message;
  return p;
}

}  // namespace

TEST(Predicate, TypedFormsMatchNaiveFilters) {
  Fixture f;
  World& w = f.world;
  // Slots are created 0..199 in order and all live in archetypes visited by slot within each;
  // the query's visit order is archetype id then slot, so compare sorted sets and the order.
  auto check = [&](const Predicate& p, auto ref) {
    ASSERT_TRUE(p.status().ok()) << p.status().message();
    std::vector<std::uint32_t> got = slots_where(w, p);
    std::vector<std::uint32_t> want;
    // Reference in visit order: archetype {Unit} (ids: Unit only) first, then {Unit, Score},
    // then {Score} alone. Build it by running the query without predicate and filtering.
    CachedQuery<term::opt_read<Unit>> q;
    ASSERT_TRUE(q.each(w, [&](Entity e, const Unit*) {
                   if (ref(w.get<Unit>(e), w.get<Score>(e))) want.push_back(e.slot);
                 }).ok());
    EXPECT_EQ(got, want);
    std::uint64_t n = 0;
    ASSERT_TRUE(count_where(q, w, p, n).ok());
    EXPECT_EQ(n, want.size());
    for (Entity e : f.units) {
      PredicateBinding b;
      ASSERT_TRUE(bind(p, w, b).ok());
      EXPECT_EQ(matches(p, b, w, e), ref(w.get<Unit>(e), w.get<Score>(e))) << e.slot;
    }
  };
  check(field(&Unit::owner) == 1, [](const Unit* u, const Score*) { return u && u->owner == 1; });
  check(field(&Unit::owner) == 1 && field(&Unit::level) < 0,
        [](const Unit* u, const Score*) { return u && u->owner == 1 && u->level < 0; });
  check(field(&Unit::kind) != UnitKind::Soldier || field(&Unit::alive) == false,
        [](const Unit* u, const Score*) { return u && (u->kind != UnitKind::Soldier || !u->alive); });
  check(field(&Unit::hp) >= fixed::from_int(3), [](const Unit* u, const Score*) { return u && u->hp >= fixed::from_int(3); });
  check(field(&Unit::pos)(&vec2::x) > fixed::from_int(2),
        [](const Unit* u, const Score*) { return u && u->pos.x > fixed::from_int(2); });
  // Every operator at a constant that occurs (ammo[0] = slot for slots with a Unit).
  check(field(&Unit::ammo).at(0) < 77, [](const Unit* u, const Score*) { return u && u->ammo[0] < 77; });
  check(field(&Unit::ammo).at(0) <= 77, [](const Unit* u, const Score*) { return u && u->ammo[0] <= 77; });
  check(field(&Unit::ammo).at(0) > 77, [](const Unit* u, const Score*) { return u && u->ammo[0] > 77; });
  check(field(&Unit::ammo).at(0) >= 77, [](const Unit* u, const Score*) { return u && u->ammo[0] >= 77; });
  check(field(&Unit::ammo).at(0) == 77, [](const Unit* u, const Score*) { return u && u->ammo[0] == 77; });
  check(field(&Unit::ammo).at(0) != 77, [](const Unit* u, const Score*) { return u && u->ammo[0] != 77; });
  check(field(&Unit::ammo).at(1) <= -150, [](const Unit* u, const Score*) { return u && u->ammo[1] <= -150; });
  check(field(&Unit::target) == Entity{3, 2}, [](const Unit* u, const Score*) { return u && u->target == Entity{3, 2}; });
  check(field(&Unit::target) < Entity{2, 1}, [](const Unit* u, const Score*) { return u && u->target < Entity{2, 1}; });
  check(field(&Score::players).at(1)(&Stats::kills) == 2,
        [](const Unit*, const Score* s) { return s && s->players[1].kills == 2; });
  // NOT is logical negation: entities without Unit satisfy !(Unit.owner == 1).
  check(!(field(&Unit::owner) == 1), [](const Unit* u, const Score*) { return !(u && u->owner == 1); });
  check(!(field(&Unit::owner) == 1 || field(&Score::players).at(0)(&Stats::kills) == 0),
        [](const Unit* u, const Score* s) { return !((u && u->owner == 1) || (s && s->players[0].kills == 0)); });
  // Constants outside the field's range compare mathematically; absent components still fail.
  check(field(&Unit::owner) < 300, [](const Unit* u, const Score*) { return u != nullptr; });
  check(field(&Unit::owner) > -1, [](const Unit* u, const Score*) { return u != nullptr; });
  check(field(&Unit::owner) == -1, [](const Unit*, const Score*) { return false; });
  check(!(field(&Unit::owner) == -1), [](const Unit*, const Score*) { return true; });
  check(Predicate::never(), [](const Unit*, const Score*) { return false; });
  check(Predicate::always(), [](const Unit*, const Score*) { return true; });
}

TEST(Predicate, RangeHelpersAreExact) {
  Fixture f;
  World& w = f.world;
  const Predicate box = inside(field(&Unit::pos), vec2{fixed::from_int(-2), fixed::from_int(-1)},
                               vec2{fixed::from_int(3), fixed::from_int(0)});
  const Predicate disc = within(field(&Unit::pos), vec2{fixed::from_int(1), fixed::from_int(1)}, fixed::from_int(3));
  std::vector<std::uint32_t> want_box, want_disc;
  CachedQuery<term::read<Unit>> q;
  ASSERT_TRUE(q.each(w, [&](Entity e, const Unit& u) {
                 const std::int64_t x = u.pos.x.raw() >> 16, y = u.pos.y.raw() >> 16;
                 if (x >= -2 && x <= 3 && y >= -1 && y <= 0) want_box.push_back(e.slot);
                 if ((x - 1) * (x - 1) + (y - 1) * (y - 1) <= 9) want_disc.push_back(e.slot);  // boundary included
               }).ok());
  EXPECT_EQ(slots_where(w, box), want_box);
  EXPECT_EQ(slots_where(w, disc), want_disc);
  // Extreme coordinates: differences near 2^64 and squares near 2^128 never overflow.
  const std::int64_t lo = INT64_MIN, hi = INT64_MAX;
  const std::int64_t v[2] = {hi, lo}, c[2] = {lo, hi};
  EXPECT_FALSE(detail::within_radius(v, c, 2, hi));
  const std::int64_t v1[2] = {hi, 0}, c1[2] = {0, 0};
  EXPECT_TRUE(detail::within_radius(v1, c1, 2, hi));
  EXPECT_FALSE(detail::within_radius(v1, c1, 2, hi - 1));
  const std::int64_t v2[2] = {3, 4}, c2[2] = {0, 0};
  EXPECT_TRUE(detail::within_radius(v2, c2, 2, 5));
  EXPECT_FALSE(detail::within_radius(v2, c2, 2, 4));
  EXPECT_FALSE(detail::within_radius(v2, c2, 2, -5));
}

TEST(Predicate, FixedDecimalsCompareExactly) {
  std::int64_t raw = 0;
  bool exact = false;
  ASSERT_TRUE(parse_fixed_exact("0.1", raw, exact));
  EXPECT_EQ(raw, 6553);  // 0.1 * 65536 = 6553.6
  EXPECT_FALSE(exact);
  ASSERT_TRUE(parse_fixed_exact("-0.1", raw, exact));
  EXPECT_EQ(raw, -6554);
  ASSERT_TRUE(parse_fixed_exact("12.5", raw, exact));
  EXPECT_EQ(raw, 12 * 65536 + 32768);
  EXPECT_TRUE(exact);
  ASSERT_TRUE(parse_fixed_exact("1e3", raw, exact));
  EXPECT_EQ(raw, 1000 * 65536);
  ASSERT_TRUE(parse_fixed_exact("0.0000152587890625", raw, exact));  // 2^-16
  EXPECT_EQ(raw, 1);
  EXPECT_TRUE(exact);
  ASSERT_TRUE(parse_fixed_exact("-140737488355328", raw, exact));  // -2^47 = min
  EXPECT_EQ(raw, INT64_MIN);
  EXPECT_FALSE(parse_fixed_exact("140737488355328", raw, exact));
  EXPECT_FALSE(parse_fixed_exact("1.2.3", raw, exact));
  EXPECT_FALSE(parse_fixed_exact("", raw, exact));
  EXPECT_FALSE(parse_fixed_exact("abc", raw, exact));

  Fixture f;
  World& w = f.world;
  // hp raws are multiples of 6553: 6553 < 0.1 (6553.6) and 6553 <= 0.1; 6553*2 > 0.1.
  auto ref = [&](auto pred) {
    std::vector<std::uint32_t> out;
    CachedQuery<term::opt_read<Unit>> q;
    (void)q.each(w, [&](Entity e, const Unit* u) {
      if (u && pred(u->hp.raw())) out.push_back(e.slot);
    });
    return out;
  };
  // raw < 6553.6  ⇔ raw <= 6553; raw > 6553.6 ⇔ raw >= 6554; == never; != always (when present).
  EXPECT_EQ(slots_where(w, dyn(w, "Unit.hp", CompareOp::Lt, "0.1")), ref([](std::int64_t r) { return r <= 6553; }));
  EXPECT_EQ(slots_where(w, dyn(w, "Unit.hp", CompareOp::Ge, "0.1")), ref([](std::int64_t r) { return r >= 6554; }));
  EXPECT_EQ(slots_where(w, dyn(w, "Unit.hp", CompareOp::Eq, "0.1")), ref([](std::int64_t) { return false; }));
  EXPECT_EQ(slots_where(w, dyn(w, "Unit.hp", CompareOp::Ne, "0.1")), ref([](std::int64_t) { return true; }));
  EXPECT_EQ(slots_where(w, dyn(w, "Unit.hp", CompareOp::Le, "-0.1")), ref([](std::int64_t r) { return r <= -6554; }));
  EXPECT_EQ(slots_where(w, dyn(w, "Unit.hp", CompareOp::Gt, "-0.1")), ref([](std::int64_t r) { return r >= -6553; }));
  EXPECT_FALSE(slots_where(w, dyn(w, "Unit.hp", CompareOp::Le, "-0.1")).empty());
}

TEST(Predicate, DynamicPathsEqualTypedOnes) {
  Fixture f;
  World& w = f.world;
  struct Case {
    Predicate typed;
    const char* path;
    CompareOp op;
    const char* literal;
  };
  const Case cases[] = {
      {field(&Unit::owner) == 2, "Unit.owner", CompareOp::Eq, "2"},
      {field(&Unit::level) >= -7, "Unit.level", CompareOp::Ge, "-7"},
      {field(&Unit::kind) == UnitKind::Archer, "Unit.kind", CompareOp::Eq, "2"},
      {field(&Unit::alive) != true, "Unit.alive", CompareOp::Ne, "true"},
      {field(&Unit::hp) > fixed::from_raw(-3 * 65536 - 32768), "Unit.hp", CompareOp::Gt, "-3.5"},
      {field(&Unit::pos)(&vec2::y) <= fixed::from_int(-2), "Unit.pos.y", CompareOp::Le, "-2"},
      {field(&Unit::pos)(&vec2::y) <= fixed::from_int(-2), "Unit.pos[1]", CompareOp::Le, "-2"},
      {field(&Unit::ammo).at(0) < 77, "Unit.ammo[0]", CompareOp::Lt, "77"},
      {field(&Unit::target) == Entity{4, 1}, "Unit.target", CompareOp::Eq, "4:1"},
      {field(&Score::players).at(2)(&Stats::kills) == 1, "Score.players[2].kills", CompareOp::Eq, "1"},
  };
  for (const Case& c : cases) {
    const Predicate d = dyn(w, c.path, c.op, c.literal);
    ASSERT_EQ(d.atomCount(), 1u) << c.path;
    ASSERT_EQ(c.typed.atomCount(), 1u) << c.path;
    EXPECT_TRUE(d.atomAt(0) == c.typed.atomAt(0)) << c.path;
    EXPECT_EQ(slots_where(w, d), slots_where(w, c.typed)) << c.path;
  }
  // Entity parts and whole-vector references.
  FieldRef r;
  ASSERT_TRUE(resolve_field(w, "Unit.target.slot", r).ok());
  EXPECT_EQ(r.kind, FieldKind::UnsignedInt);
  EXPECT_EQ(r.offset, offsetof(Unit, target));
  ASSERT_TRUE(resolve_field(w, "Unit.target.generation", r).ok());
  EXPECT_EQ(r.offset, offsetof(Unit, target) + 4);
  ASSERT_TRUE(resolve_field(w, "Unit.pos", r).ok());
  EXPECT_EQ(r.elements, 2);
  EXPECT_FALSE(r.scalar());
}

TEST(Predicate, DynamicErrorsSayWhatAndWhere) {
  Fixture f;
  World& w = f.world;
  auto error = [&](const char* path, const char* lit, ErrorCode code, std::uint32_t column, const char* text) {
    Predicate p;
    PredicateError err;
    const Status s = compare(w, path, CompareOp::Eq, lit, p, &err);
    EXPECT_EQ(s.code(), code) << path;
    EXPECT_EQ(err.column, column) << path << ": " << err.message;
    EXPECT_NE(std::string(err.message).find(text), std::string::npos) << err.message;
    EXPECT_TRUE(p.isAlways()) << "untouched on error";
  };
  error("Unitt.hp", "1", ErrorCode::NotRegistered, 0, "no component named 'Unitt'");
  error("Unit.hpp", "1", ErrorCode::InvalidArgument, 5, "Unit has no field 'hpp' (fields: hp, pos, target");
  error("Unit.ammo[2]", "1", ErrorCode::InvalidArgument, 10, "index 2 out of range: Unit.ammo has 2 element(s)");
  error("Unit.ammo[x]", "1", ErrorCode::InvalidArgument, 10, "expected an element index");
  error("Unit.pos.w", "1", ErrorCode::InvalidArgument, 9, "Unit.pos has no part 'w'");
  error("Unit.ammo", "1", ErrorCode::InvalidArgument, 0, "'Unit.ammo' has 2 elements");
  error("Unit.owner", "1.5", ErrorCode::InvalidArgument, 0, "expected an integer");
  error("Unit.alive", "yes", ErrorCode::InvalidArgument, 0, "expected true or false");
  error("Unit.target", "4", ErrorCode::InvalidArgument, 0, "expected an entity SLOT:GEN");
  error("Unit.hp", "1e20", ErrorCode::InvalidArgument, 0, "within the fixed range");
  error("Score.players[3].kills", "1", ErrorCode::InvalidArgument, 6, "Score has no field 'players[3].kills'");
  error("Unit", "1", ErrorCode::InvalidArgument, 0, "expected Component.field");
}

TEST(Predicate, DnfIsBoundedAndErrorsStick) {
  Predicate many = Predicate::never();
  for (int i = 0; i < 16; ++i) many = many || field(&Unit::level) == i;
  ASSERT_TRUE(many.status().ok());
  EXPECT_EQ(many.termCount(), 16u);
  const Predicate over = many || field(&Unit::level) == 99;
  EXPECT_EQ(over.status().code(), ErrorCode::InvalidArgument);
  EXPECT_EQ((over && field(&Unit::owner) == 1).status().code(), ErrorCode::InvalidArgument);
  // (a1 ∨ b1) ∧ ... ∧ (a5 ∨ b5) = 32 branches: over the cap.
  Predicate prod;
  for (int i = 0; i < 5; ++i) prod = prod && (field(&Unit::level) == i || field(&Unit::owner) == i);
  EXPECT_EQ(prod.status().code(), ErrorCode::InvalidArgument);
  // ¬(a ∧ b ∧ c) = ¬a ∨ ¬b ∨ ¬c: 3 branches; double negation gives one conjunction back.
  const Predicate abc = field(&Unit::level) == 1 && field(&Unit::owner) == 2 && field(&Unit::alive) == true;
  EXPECT_EQ((!abc).termCount(), 3u);
  EXPECT_EQ((!!abc).termCount(), 1u);
  EXPECT_EQ((!!abc).atomCount(), 3u);
  // Contradictions vanish, absorption keeps the smaller term.
  const Predicate a = field(&Unit::level) == 1;
  EXPECT_EQ((a && !a).termCount(), 0u);
  EXPECT_EQ((a || (a && field(&Unit::owner) == 2)).termCount(), 1u);
  EXPECT_EQ((a || (a && field(&Unit::owner) == 2)).atomCount(), 1u);
  Fixture f;
  CachedQuery<term::read<Unit>> q;
  std::uint64_t n = 7;
  EXPECT_EQ(count_where(q, f.world, over, n).code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(n, 0u);
}

TEST(Predicate, DynamicQueryAndGuard) {
  Fixture f;
  World& w = f.world;
  DynamicQuery q;
  ASSERT_TRUE(QueryBuilder(w).write("Unit").optRead("Score").build(q).ok());
  const Predicate p = dyn(w, "Unit.owner", CompareOp::Eq, "3") && dyn(w, "Unit.level", CompareOp::Gt, "0");
  std::vector<std::uint32_t> got;
  ASSERT_TRUE(each_where(q, w, p, [&](const DynamicRow& row) {
                got.push_back(row.entity().slot);
                Unit u;
                std::memcpy(&u, row.read(0), sizeof u);
                EXPECT_EQ(u.owner, 3);
                EXPECT_GT(u.level, 0);
                EXPECT_NE(row.write(0), nullptr);
                EXPECT_EQ(row.read(1) != nullptr, w.get<Score>(row.entity()) != nullptr);
                // The guard is live: a nested query is rejected.
                CachedQuery<term::read<Unit>> inner;
                EXPECT_EQ(each_where(inner, w, p, [](Entity, const Unit&) {}).code(), ErrorCode::InvalidArgument);
              }).ok());
  std::vector<std::uint32_t> want;
  CachedQuery<term::read<Unit>> all;
  ASSERT_TRUE(all.each(w, [&](Entity e, const Unit& u) {
                   if (u.owner == 3 && u.level > 0) want.push_back(e.slot);
                 }).ok());
  EXPECT_EQ(got, want);
  EXPECT_FALSE(want.empty());
}

TEST(Predicate, SystemAccessCoversPredicateAndOrderComponents) {
  Fixture f;
  World& w = f.world;
  AccessSet only_unit;
  ASSERT_TRUE(access_of(w, Reads<Unit>{}, Writes<>{}, "unit-reader", only_unit).ok());
  World::AccessScope scope(w, &only_unit);
  CachedQuery<term::read<Unit>> q;
  std::uint64_t n = 0;
  // Reading Unit (fetch and predicate) is declared.
  ASSERT_TRUE(count_where(q, w, field(&Unit::owner) == 1, n).ok());
  EXPECT_GT(n, 0u);
  // A predicate on Score reads Score: undeclared → refused before any row.
  int rows = 0;
  EXPECT_EQ(each_where(q, w, field(&Score::players).at(0)(&Stats::kills) == 0, [&](Entity, const Unit&) { ++rows; })
                .code(),
            ErrorCode::InvalidArgument);
  EXPECT_EQ(rows, 0);
  EXPECT_EQ(count_where(q, w, field(&Score::players).at(0)(&Stats::kills) == 0, n).code(), ErrorCode::InvalidArgument);
  // Ordering by a Score field reads Score too.
  OrderBuffer buf(w.config());
  SelectResult r;
  EXPECT_EQ(select(q, w, Predicate{}, OrderBy{field(&Score::players).at(0)(&Stats::kills).ref, Order::Asc}, Page{},
                   buf.items(), r)
                .code(),
            ErrorCode::InvalidArgument);
  EXPECT_TRUE(select(q, w, Predicate{}, OrderBy{field(&Unit::owner).ref, Order::Asc}, Page{}, buf.items(), r).ok());
  // A write fetch needs Write.
  CachedQuery<term::write<Unit>> wq;
  EXPECT_EQ(each_where(wq, w, Predicate{}, [&](Entity, Unit&) { ++rows; }).code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(rows, 0);
}
