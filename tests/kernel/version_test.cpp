// <lockstep/version.h>: the release number generated from project(lockstep VERSION ...).
#include <lockstep/version.h>

#include <gtest/gtest.h>

#include <string>

static_assert(LOCKSTEP_VERSION_NUMBER == LOCKSTEP_VERSION_MAJOR * 10000 + LOCKSTEP_VERSION_MINOR * 100 + LOCKSTEP_VERSION_PATCH);

TEST(Version, IsTheReleaseOfThisTree) {
  EXPECT_EQ(LOCKSTEP_VERSION_MAJOR, 0);
  EXPECT_EQ(LOCKSTEP_VERSION_MINOR, 3);
  EXPECT_EQ(LOCKSTEP_VERSION_PATCH, 0);
  EXPECT_EQ(std::string(LOCKSTEP_VERSION_STRING), "0.3.0");
  EXPECT_EQ(LOCKSTEP_VERSION_NUMBER, 300);
}
