// RapidCheck properties of the state hash (docs/hashing.md).
#include "hash/hash_rc_support.h"

#include <lockstep/hash/state_hash.h>
#include <lockstep/world.h>

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <cstring>
#include <vector>

using namespace hashtest;
using lockstep::HashPath;
using lockstep::StateHash;
using lockstep::World;

namespace {

void build(Driver& d, const std::vector<Op>& ops) {
  for (const Op& op : ops) (void)d.apply(op);
}

// Every part other than total and components[except] is equal.
void expect_only_component_differs(const StateHash& a, const StateHash& b, std::uint32_t c) {
  RC_ASSERT(a.total != b.total);
  RC_ASSERT(a.tick == b.tick);
  RC_ASSERT(a.entities == b.entities);
  RC_ASSERT(a.archetypes == b.archetypes);
  RC_ASSERT(a.resources == b.resources);
  RC_ASSERT(a.component_count == b.component_count);
  for (std::uint32_t k = 0; k < a.component_count; ++k) {
    if (k == c)
      RC_ASSERT(a.components[k] != b.components[k]);
    else
      RC_ASSERT(a.components[k] == b.components[k]);
  }
}

}  // namespace

RC_GTEST_PROP(hash_properties, TwoWorldsFedSameOpsHashEqualAfterEveryStep, (const std::vector<Op>& ops)) {
  World w1(small_config()), w2(small_config());
  register_all(w1);
  register_all(w2);
  Driver d1(w1), d2(w2);
  RC_ASSERT(hash_of(w1) == hash_of(w2));
  for (const Op& op : ops) {
    RC_ASSERT(d1.apply(op) == d2.apply(op));
    const StateHash h1 = hash_of(w1), h2 = hash_of(w2);
    RC_ASSERT(h1 == h2);
    RC_ASSERT(h1.total == h2.total);
  }
}

RC_GTEST_PROP(hash_properties, FastPathEqualsCanonicalPath, (const std::vector<Op>& ops)) {
  World w(small_config());
  register_all(w);
  Driver d(w);
  for (const Op& op : ops) {
    (void)d.apply(op);
    RC_ASSERT(lockstep::hash_world(w, HashPath::Auto) == lockstep::hash_world(w, HashPath::Canonical));
  }
  lockstep::Snapshot s(w);
  w.save(s);
  RC_ASSERT(lockstep::hash_storage(s.view(), HashPath::Auto) == lockstep::hash_storage(s.view(), HashPath::Canonical));
  RC_ASSERT(lockstep::hash_storage(s.view()) == hash_of(w));
}

RC_GTEST_PROP(hash_properties, SaveMoreOpsLoadRestoresHashAndFuture,
              (const std::vector<Op>& before, const std::vector<Op>& between, const std::vector<Op>& after)) {
  World w(small_config()), ref(small_config());
  register_all(w);
  register_all(ref);
  Driver dw(w), dr(ref);
  for (const Op& op : before) RC_ASSERT(dw.apply(op) == dr.apply(op));

  lockstep::Snapshot snap(w);
  w.save(snap);
  const StateHash saved = hash_of(w);
  RC_ASSERT(lockstep::hash_storage(snap.view()) == saved);
  const std::vector<Entity> saved_handles = dw.handles;

  build(dw, between);
  const lockstep::Status st = w.load(snap);
  RC_ASSERT(st.ok());
  dw.handles = saved_handles;
  RC_ASSERT(hash_of(w) == saved);
  RC_ASSERT(hash_of(w) == hash_of(ref));
  for (const Entity e : dw.handles) RC_ASSERT(w.alive(e) == ref.alive(e));
  RC_ASSERT(w.checkInvariants().ok());

  // Equal futures: the same operations give the same results and hashes on both.
  for (const Op& op : after) {
    RC_ASSERT(dw.apply(op) == dr.apply(op));
    RC_ASSERT(hash_of(w) == hash_of(ref));
  }
  for (const Entity e : dw.handles) RC_ASSERT(w.alive(e) == ref.alive(e));
}

RC_GTEST_PROP(hash_properties, BitFlipChangesTotalAndExactlyThatComponent,
              (const std::vector<Op>& ops, std::uint32_t pick, std::uint32_t bit_pick)) {
  World w(small_config());
  register_all(w);
  Driver d(w);
  build(d, ops);
  // Make sure there is at least one entity with every component.
  Entity full;
  if (w.tryCreate(full).ok()) {
    (void)w.addComponent(full, Pos{fixed::from_raw(1), fixed::from_raw(2)});
    (void)w.addComponent(full, Vel{fixed::from_raw(3), fixed::from_raw(4)});
    (void)w.addComponent(full, Health{5, 6});
    (void)w.addComponent(full, Tag{7, false, 8, 9, full});
  }
  // Every (live entity, component) pair.
  struct Target {
    Entity e;
    std::uint32_t c;
  };
  std::vector<Target> targets;
  (void)w.each([&](Entity e) {
    for (std::uint32_t c = 0; c < w.componentCount(); ++c)
      if (w.get_bytes(e, c) != nullptr) targets.push_back({e, c});
  });
  RC_PRE(!targets.empty());
  const Target t = targets[pick % targets.size()];
  const lockstep::TypeDescriptor& desc = w.componentDescriptor(t.c);

  // Candidate bits: every bit, except that a bool field only takes values 0 and 1.
  std::vector<std::uint32_t> bits;
  for (std::uint32_t f = 0; f < desc.field_count; ++f) {
    const lockstep::FieldDescriptor& fd = desc.fields[f];
    for (std::uint32_t byte = fd.offset; byte < fd.offset + fd.size(); ++byte)
      for (std::uint32_t b = 0; b < 8; ++b)
        if (fd.kind != lockstep::FieldKind::Bool || b == 0) bits.push_back(byte * 8 + b);
  }
  const std::uint32_t bit = bits[bit_pick % bits.size()];

  const StateHash before = hash_of(w);
  std::vector<std::byte> value(desc.size);
  std::memcpy(value.data(), w.get_bytes(t.e, t.c), desc.size);
  value[bit / 8] ^= static_cast<std::byte>(1u << (bit % 8));
  RC_ASSERT(w.add_bytes(t.e, t.c, value.data()).ok());
  const StateHash after = hash_of(w);
  expect_only_component_differs(before, after, t.c);
  RC_ASSERT(lockstep::hash_world(w, HashPath::Canonical) == after);

  // Flip back: the original hash returns.
  value[bit / 8] ^= static_cast<std::byte>(1u << (bit % 8));
  RC_ASSERT(w.add_bytes(t.e, t.c, value.data()).ok());
  RC_ASSERT(hash_of(w) == before);
}

RC_GTEST_PROP(hash_properties, ResourceBitFlipChangesOnlyResources,
              (const std::vector<Op>& ops, std::uint32_t bit_pick)) {
  World w(small_config());
  register_all(w);
  Driver d(w);
  build(d, ops);
  const StateHash before = hash_of(w);
  Score& s = *w.resource<Score>();
  const std::uint32_t bit = bit_pick % (sizeof(Score) * 8);
  auto* bytes = reinterpret_cast<unsigned char*>(&s);
  bytes[bit / 8] = static_cast<unsigned char>(bytes[bit / 8] ^ (1u << (bit % 8)));
  const StateHash after = hash_of(w);
  RC_ASSERT(after.total != before.total);
  RC_ASSERT(after.resources != before.resources);
  RC_ASSERT(after.entities == before.entities);
  RC_ASSERT(after.archetypes == before.archetypes);
  for (std::uint32_t c = 0; c < after.component_count; ++c) RC_ASSERT(after.components[c] == before.components[c]);
}

RC_GTEST_PROP(hash_properties, DestroyAndRecreateChangesHash, (const std::vector<Op>& ops, std::uint32_t pick)) {
  World w(small_config());
  register_all(w);
  Driver d(w);
  build(d, ops);
  std::vector<Entity> live;
  (void)w.each([&](Entity e) { live.push_back(e); });
  RC_PRE(!live.empty());
  const Entity e = live[pick % live.size()];
  // Copy its components, destroy it, re-create an entity with the same components.
  std::vector<std::vector<std::byte>> values(w.componentCount());
  for (std::uint32_t c = 0; c < w.componentCount(); ++c)
    if (const std::byte* p = w.get_bytes(e, c)) values[c].assign(p, p + w.componentDescriptor(c).size);
  const StateHash before = hash_of(w);
  const std::uint32_t archetypes_before = w.archetypeCount();
  RC_ASSERT(w.destroy(e).ok());
  const StateHash destroyed = hash_of(w);
  RC_ASSERT(destroyed.total != before.total);
  Entity n;
  RC_ASSERT(w.tryCreate(n).ok());
  for (std::uint32_t c = 0; c < w.componentCount(); ++c)
    if (!values[c].empty()) RC_ASSERT(w.add_bytes(n, c, values[c].data()).ok());
  const StateHash after = hash_of(w);
  RC_ASSERT(after.total != before.total);
  RC_ASSERT(after.entities != before.entities);
  if (n.slot == e.slot && w.archetypeCount() == archetypes_before) {
    // Same slot, same values, no new (empty) archetype on the way: only the generation differs.
    RC_ASSERT(n.generation != e.generation);
    RC_ASSERT(after.archetypes == before.archetypes);
    for (std::uint32_t c = 0; c < after.component_count; ++c) RC_ASSERT(after.components[c] == before.components[c]);
  }
}
