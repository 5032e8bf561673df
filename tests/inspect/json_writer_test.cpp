// inspect::JsonWriter: the one-line JSON reports of the tool and of a game's own tool.
#include <lockstep/inspect/json_writer.h>

#include <gtest/gtest.h>

namespace lockstep::inspect {
namespace {

TEST(JsonWriter, ObjectsArraysAndEveryFieldType) {
  JsonWriter j;
  j.begin().field("ok", true).field("exit", 0).field("ticks", std::uint64_t{600}).field("adv", std::int64_t{-3})
      .field("players", std::uint32_t{2}).field("ratio", 0.125).field("sim", "duel");
  j.begin_array("files").value("a.replay").value("b\"c").end_array();
  j.begin("nested").field("hash", std::string("00ff")).end();
  j.begin_array("rows").begin().field("n", 1).end().begin().field("n", 2).end().end_array();
  j.end();
  EXPECT_EQ(j.str(),
            "{\"ok\":true,\"exit\":0,\"ticks\":600,\"adv\":-3,\"players\":2,\"ratio\":0.125,\"sim\":\"duel\","
            "\"files\":[\"a.replay\",\"b\\\"c\"],\"nested\":{\"hash\":\"00ff\"},\"rows\":[{\"n\":1},{\"n\":2}]}");
}

TEST(JsonWriter, EscapesControlBytesAndQuotes) {
  EXPECT_EQ(json_escape("a\"b\\c\nd\x01"), "a\\\"b\\\\c\\nd\\u0001");
  JsonWriter j;
  j.begin().field("k\"ey", std::string_view("tab\there")).field("big", 1e20).end();
  EXPECT_EQ(j.str(), "{\"k\\\"ey\":\"tab\\there\",\"big\":1e+20}");
}

}  // namespace
}  // namespace lockstep::inspect
