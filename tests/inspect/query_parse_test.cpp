// The query language's bounds (inspect/query.h): nesting of `not` and parentheses is limited
// to kMaxQueryDepth with an error naming the column (1000 parentheses or 10,000 `not`s
// overflowed the stack), and text echoed in messages is escaped and cut.
#include "inspect_support.h"

#include <lockstep/inspect/query.h>
#include <lockstep/inspect/state.h>

#include <gtest/gtest.h>

#include <string>

namespace {

using namespace lockstep;

const inspect::State& state() {
  static const inspect::State s = inspect::capture(inspect_test::skirmish_at(10)->world().storage());
  return s;
}

std::string repeat(const std::string& s, int n) {
  std::string out;
  for (int i = 0; i < n; ++i) out += s;
  return out;
}

TEST(QueryParse, NestingDeeperThanTheLimitNamesTheColumn) {
  inspect::CompiledQuery q;
  inspect::QueryError err;
  const std::string parens = "Team where " + repeat("(", 1000) + "Team.owner == 1" + repeat(")", 1000);
  EXPECT_FALSE(inspect::compile_query(parens, state(), q, err));
  EXPECT_EQ(err.column, 11u + inspect::kMaxQueryDepth);  // the 65th '('
  EXPECT_EQ(err.message, "nested deeper than 64 levels of 'not' and parentheses");
  const std::string nots = repeat("not ", 10000) + "Team.owner == 1";
  EXPECT_FALSE(inspect::compile_where(nots, state(), q, err));
  EXPECT_EQ(err.column, 4u * inspect::kMaxQueryDepth);  // the 65th 'not'
  EXPECT_EQ(err.message, "nested deeper than 64 levels of 'not' and parentheses");
  // Mixed: the count is of open levels, whichever kind.
  const std::string mixed = repeat("not (", 40) + "Team.owner == 1" + repeat(")", 40);
  EXPECT_FALSE(inspect::compile_where(mixed, state(), q, err));
  EXPECT_EQ(err.column, 5u * 32);  // level 65 is the 33rd "not"
}

TEST(QueryParse, SixtyFourLevelsAreAccepted) {
  inspect::CompiledQuery q;
  inspect::QueryError err;
  EXPECT_TRUE(inspect::compile_where(repeat("(", 64) + "Team.owner == 1" + repeat(")", 64), state(), q, err)) << err.message;
  EXPECT_TRUE(inspect::compile_where(repeat("not ", 64) + "Team.owner == 1", state(), q, err)) << err.message;
  // Levels close again: sequential groups never add up.
  const std::string group = "(" + repeat("(", 63) + "Team.owner == 1" + repeat(")", 63) + ")";
  EXPECT_TRUE(inspect::compile_where(group + " and " + group, state(), q, err)) << err.message;
}

TEST(QueryParse, EchoedTextIsEscapedAndCut) {
  inspect::CompiledQuery q;
  inspect::QueryError err;
  EXPECT_FALSE(inspect::compile_query("Te\x1b[31mam", state(), q, err));
  EXPECT_EQ(err.message.find('\x1b'), std::string::npos) << err.message;
  EXPECT_FALSE(inspect::compile_query(std::string(122880, 'a'), state(), q, err));
  EXPECT_EQ(err.message.substr(0, 23), "no component named 'aaa");
  EXPECT_NE(err.message.find("...(122816 more bytes)'"), std::string::npos) << err.message.substr(0, 200);
  EXPECT_LT(err.message.size(), 400u);
  EXPECT_FALSE(inspect::compile_where("Team.owner == 1 \x07", state(), q, err));
  EXPECT_EQ(err.message, "unexpected character '\\x07'");
  EXPECT_EQ(err.column, 16u);
}

TEST(QueryParse, PrintableExcerpt) {
  EXPECT_EQ(inspect::printable_excerpt("plain text"), "plain text");
  EXPECT_EQ(inspect::printable_excerpt("a\x1b[2Jb\n\xc3\xa9\\"), "a\\x1b[2Jb\\x0a\\xc3\\xa9\\\\");
  EXPECT_EQ(inspect::printable_excerpt("abcdef", 4), "abcd...(2 more bytes)");
  EXPECT_EQ(inspect::printable_excerpt("", 4), "");
}

}  // namespace
