// Desync bundles: round trip, self-description, bad input with file/offset/expected.
#include "inspect_support.h"

#include <lockstep/fixtures/skirmish.h>
#include <lockstep/hash/state_hash.h>
#include <lockstep/inspect/bundle.h>
#include <lockstep/world.h>

#include <gtest/gtest.h>

using namespace lockstep;

namespace {
inspect::Bundle make() {
  auto a = inspect_test::skirmish_at(30);
  auto b = inspect_test::skirmish_at(31);
  auto c = inspect_test::skirmish_at(29);
  inspect::Bundle bundle;
  bundle.source = "test";
  inspect::set_sim(bundle, a->sim(), a->config());
  bundle.tick = 30;
  bundle.system = "skirmish.movement";
  bundle.report = "planted";
  const inspect::State sa = inspect::capture(a->world().storage());
  bundle.facts = inspect::build_facts(&a->sim(), &sa);
  bundle.sides.push_back({"left", true, sa, inspect::breakdown(hash_world(a->world()))});
  bundle.sides.push_back({"right", false, {}, inspect::breakdown(hash_world(b->world()))});
  bundle.has_agreeing = true;
  bundle.agreeing = inspect::capture(c->world().storage());
  bundle.inputs_from = 29;
  bundle.frame_bytes = a->frame_bytes();
  const auto f = inspect_test::skirmish_replay().frame(29);
  bundle.inputs.assign(f.begin(), f.end());
  return bundle;
}
}  // namespace

TEST(InspectBundle, RoundTripsEveryPart) {
  const inspect::Bundle b = make();
  const std::vector<std::byte> bytes = inspect::encode_bundle(b);
  inspect::Bundle back;
  const FileStatus st = inspect::decode_bundle(bytes, back, "b.lsbundle");
  ASSERT_TRUE(st.ok()) << st.message;
  EXPECT_EQ(inspect::encode_bundle(back), bytes);
  EXPECT_EQ(back.sim_name, "skirmish");
  EXPECT_EQ(back.system, "skirmish.movement");
  ASSERT_EQ(back.sides.size(), 2u);
  EXPECT_TRUE(back.sides[0].has_state);
  EXPECT_FALSE(back.sides[1].has_state);
  EXPECT_EQ(back.sides[1].hash, b.sides[1].hash);
  EXPECT_EQ(back.sides[0].hash.resource_parts.size(), back.sides[0].state.resources.size());
  EXPECT_EQ(back.agreeing.tick, 29u);
  EXPECT_EQ(back.inputs, b.inputs);
  EXPECT_EQ(back.facts, b.facts);
  // The stored state hashes back to the stored breakdown (nothing lost on the way).
  EXPECT_EQ(inspect::schema_hash(back.sides[0].state), inspect::schema_hash(b.sides[0].state));
}

// Issue 22: the determinism flags come from add_compile_options / lockstep::determinism, not
// CMAKE_CXX_FLAGS, so the "flags" fact never showed them; they are a fact of their own.
TEST(InspectBundle, BuildFactsNameTheDeterminismFlags) {
  const auto facts = inspect::build_facts();
  std::string flags, fast_math;
  for (const auto& [k, v] : facts) {
    if (k == "determinism flags") flags = v;
    if (k == "fast math") fast_math = v;
  }
  EXPECT_EQ(flags, "-ffp-contract=off -fno-fast-math");
  EXPECT_EQ(fast_math, "off");
}

TEST(InspectBundle, BadInputNamesFileOffsetAndExpectation) {
  const std::vector<std::byte> bytes = inspect::encode_bundle(make());
  inspect::Bundle out;
  std::vector<std::byte> cut(bytes.begin(), bytes.begin() + 64);
  FileStatus st = inspect::decode_bundle(cut, out, "cut.lsbundle");
  EXPECT_EQ(st.code, ErrorCode::Corrupt);
  EXPECT_EQ(st.offset, 56u);
  EXPECT_EQ(st.message.rfind("cut.lsbundle: byte 56: expected checksum ", 0), 0u) << st.message;
  std::vector<std::byte> magic = bytes;
  magic[3] = std::byte{'X'};
  st = inspect::decode_bundle(magic, out, "m");
  EXPECT_EQ(st.message, "m: byte 1: expected the bundle magic \"LSBUNDLE\"");
}

TEST(InspectBundle, ResourceSubHashesNameTheResourceButLeaveTotalsAlone) {
  auto a = inspect_test::skirmish_at(12);
  const StateHash before = hash_world(a->world());
  ASSERT_EQ(before.resource_count, a->world().storage().resource_count());
  const std::int32_t economy = a->world().resourceIdByName("Economy");
  ASSERT_GE(economy, 0);
  a->world().resource<lockstep::fixtures::skirmish::Economy>()->kills[0] += 1;
  const StateHash after = hash_world(a->world());
  const HashDiff d = diff_hashes(before, after);
  EXPECT_EQ(d.parts, kPartTotal | kPartResources);
  ASSERT_EQ(d.resource_count, 1u);
  EXPECT_EQ(d.resources[0], economy);
  EXPECT_EQ(describe_hash_diff(before, after, a->world().storage()), "tick 12: total differs; resources: Economy");
  // The canonical path computes the same per-resource sub-hashes.
  EXPECT_EQ(hash_world(a->world(), HashPath::Canonical), after);
}
