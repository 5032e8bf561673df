// RapidCheck properties of snapshots and snapshot files.
#include "hash/hash_rc_support.h"

#include <lockstep/hash/snapshot_file.h>
#include <lockstep/hash/state_hash.h>
#include <lockstep/world.h>

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <vector>

using namespace hashtest;
using lockstep::StateHash;
using lockstep::World;

RC_GTEST_PROP(snapshot_file_properties, RoundTripIsByteIdenticalWithEqualHashAndFuture,
              (const std::vector<Op>& ops, const std::vector<Op>& after)) {
  World w(small_config());
  register_all(w);
  Driver d(w);
  for (const Op& op : ops) (void)d.apply(op);

  std::vector<std::byte> bytes;
  const lockstep::FileStatus enc = lockstep::encode_snapshot(w.storage(), bytes);
  RC_ASSERT(enc.ok());

  World copy(small_config());
  register_all(copy);
  lockstep::Snapshot scratch(copy);
  const lockstep::FileStatus st = lockstep::load_snapshot_bytes(bytes, copy, scratch);
  if (!st.ok()) RC_FAIL(st.message);
  RC_ASSERT(hash_of(copy) == hash_of(w));
  RC_ASSERT(copy.checkInvariants().ok());

  std::vector<std::byte> again;
  RC_ASSERT(lockstep::encode_snapshot(copy.storage(), again).ok());
  RC_ASSERT(again == bytes);

  // The copy behaves the same from here on.
  Driver dc(copy);
  dc.handles = d.handles;
  for (const Op& op : after) {
    RC_ASSERT(d.apply(op) == dc.apply(op));
    RC_ASSERT(hash_of(copy) == hash_of(w));
  }
}

RC_GTEST_PROP(snapshot_file_properties, LoadsIntoWorldWithOtherRegistrationOrder, (const std::vector<Op>& ops)) {
  World w(small_config());
  register_all(w);
  Driver d(w);
  for (const Op& op : ops) (void)d.apply(op);
  std::vector<std::byte> bytes;
  RC_ASSERT(lockstep::encode_snapshot(w.storage(), bytes).ok());

  World other(small_config());
  register_all(other, /*reversed=*/true);
  lockstep::Snapshot scratch(other);
  const lockstep::FileStatus st = lockstep::load_snapshot_bytes(bytes, other, scratch);
  if (!st.ok()) RC_FAIL(st.message);
  RC_ASSERT(other.checkInvariants().ok());
  // Same values per component (by name), same entity table, same resources' values.
  const StateHash a = hash_of(w), b = hash_of(other);
  RC_ASSERT(a.entities == b.entities);
  for (std::uint32_t c = 0; c < w.componentCount(); ++c) {
    const std::int32_t oc = other.componentIdByName(w.componentDescriptor(c).name);
    RC_ASSERT(oc >= 0);
    RC_ASSERT(a.components[c] == b.components[static_cast<std::uint32_t>(oc)]);
  }
  for (const Entity e : d.handles) {
    RC_ASSERT(w.alive(e) == other.alive(e));
    const Pos* p1 = w.get<Pos>(e);
    const Pos* p2 = other.get<Pos>(e);
    RC_ASSERT((p1 == nullptr) == (p2 == nullptr));
    if (p1 != nullptr) RC_ASSERT(p1->x == p2->x && p1->y == p2->y);
  }
  RC_ASSERT(w.resource<Rng>()->state == other.resource<Rng>()->state);
}

RC_GTEST_PROP(snapshot_file_properties, RandomCorruptionIsAnErrorNeverACrash,
              (const std::vector<Op>& ops, const std::vector<std::uint32_t>& flips, bool fix_checksum)) {
  World w(small_config());
  register_all(w);
  Driver d(w);
  for (const Op& op : ops) (void)d.apply(op);
  std::vector<std::byte> bytes;
  RC_ASSERT(lockstep::encode_snapshot(w.storage(), bytes).ok());
  RC_PRE(!flips.empty());
  std::vector<std::byte> bad = bytes;
  const std::size_t body = bad.size() - 8;
  for (const std::uint32_t f : flips) {
    const std::size_t bit = f % (body * 8);
    bad[bit / 8] ^= static_cast<std::byte>(1u << (bit % 8));
  }
  RC_PRE(bad != bytes);
  if (fix_checksum) {
    // Re-seal the checksum so the structural checks (not the checksum) must catch it.
    const std::uint64_t sum = lockstep::xxh3_64(std::span<const std::byte>(bad).first(body));
    for (int i = 0; i < 8; ++i) bad[body + i] = static_cast<std::byte>((sum >> (8 * i)) & 0xFFu);
  }
  World target(small_config());
  register_all(target);
  Driver dt(target);
  for (int i = 0; i < 3; ++i) (void)dt.apply(Op{kCreate, 0, 0, 0});
  const StateHash target_before = hash_of(target);
  lockstep::Snapshot scratch(target);
  const lockstep::FileStatus st = lockstep::load_snapshot_bytes(bad, target, scratch, "bad.snap");
  if (!fix_checksum) {
    RC_ASSERT(!st.ok());
    RC_ASSERT(st.code == lockstep::ErrorCode::Corrupt);
  }
  if (st.ok()) {
    // A flip the format cannot detect (e.g. in a value byte) must still give a valid world.
    RC_ASSERT(target.checkInvariants().ok());
  } else {
    RC_ASSERT(!st.message.empty());
    RC_ASSERT(st.message.find("bad.snap") != std::string::npos);
    RC_ASSERT(hash_of(target) == target_before);  // unchanged on error
  }
}
