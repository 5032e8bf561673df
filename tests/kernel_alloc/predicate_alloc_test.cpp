// Zero heap allocations per query evaluation with predicates, ordering and paging
// (docs/query.md): building predicates (typed and from strings), binding, each_where on
// typed and dynamic queries, count_where, select with order_by + take (heap) and without
// take (full sort), matches() per entity. The order buffer is reserved before the window.
#include "support/counting_allocator.h"
#include "support/kernel_types.h"

#include <lockstep/query/where.h>

#include <gtest/gtest.h>

#include <cstdio>

using namespace lockstep;
using namespace lockstep_test;

TEST(ZeroAlloc, PredicatesOrderingAndPagingAllocateNothing) {
  WorldConfig config;
  config.max_entities = 4096;
  World world(config);
  register_all(world);
  for (std::uint32_t i = 0; i < 3000; ++i) {
    const Entity e = world.create();
    ASSERT_TRUE(world.addComponent(e, Pos{static_cast<std::int64_t>(i % 97), static_cast<std::int64_t>(i)}).ok());
    if (i % 2 == 0) {
      ASSERT_TRUE(world.addComponent(e, Health{static_cast<std::int32_t>(i % 50), 100}).ok());
    }
  }
  OrderBuffer buffer(world.config());
  CachedQuery<term::read<Pos>, term::opt_read<Health>> typed;
  DynamicQuery dyn;
  ASSERT_TRUE(QueryBuilder(world).read("Pos").build(dyn).ok());
  long visits = 0;
  std::uint64_t matched = 0;

  const AllocationWindow window;
  for (int round = 0; round < 3; ++round) {
    Predicate p = (field(&Pos::x) < 40 && !(field(&Health::hp) >= 25)) || field(&Pos::y) == 7;
    Predicate d;
    PredicateError err;
    ASSERT_TRUE(compare(world, "Health.hp", CompareOp::Gt, "10", d, &err).ok());
    p = p && d;
    ASSERT_TRUE(p.status().ok());
    ASSERT_TRUE(each_where(typed, world, p, [&](Entity, const Pos&, const Health*) { ++visits; }).ok());
    ASSERT_TRUE(each_where(dyn, world, d, [&](const DynamicRow&) { ++visits; }).ok());
    std::uint64_t n = 0;
    ASSERT_TRUE(count_where(typed, world, p, n).ok());
    matched += n;
    SelectResult r;
    ASSERT_TRUE(select(typed, world, d, OrderBy{field(&Pos::x).ref, Order::Desc}, Page{5, 50}, buffer.items(), r).ok());
    visits += r.count;
    ASSERT_TRUE(select(dyn, world, d, OrderBy{field(&Health::hp).ref, Order::Asc}, Page{}, buffer.items(), r).ok());
    visits += r.count;
    PredicateBinding b;
    ASSERT_TRUE(bind(p, world, b).ok());
    for (std::uint32_t s = 0; s < 100; ++s) visits += matches(p, b, world, Entity{s, 1}) ? 1 : 0;
  }
  const long news = window.allocations(), mallocs = window.mallocs();
  std::printf("lockstep-stats zero_alloc window=predicates allocations=%ld mallocs=%ld malloc_counted=%d visits=%ld\n",
              news, mallocs, counts_malloc() ? 1 : 0, visits);
  EXPECT_EQ(news, 0);
  if (counts_malloc()) {
    EXPECT_EQ(mallocs, 0);
  }
  EXPECT_GT(visits, 3000);
  EXPECT_GT(matched, 0u);
}
