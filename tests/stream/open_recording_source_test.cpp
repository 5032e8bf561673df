// stream/http_source.h, open_recording_source: a watcher's --follow SOURCE as a ByteSource.
#include <lockstep/stream/http_source.h>

#include <gtest/gtest.h>

#include <string>

namespace {

using namespace lockstep;

TEST(OpenRecordingSource, APathIsAGrowingFile) {
  std::string error;
  const auto s = stream::open_recording_source("/nonexistent/p0.replay", error);
  ASSERT_NE(s, nullptr);
  EXPECT_NE(dynamic_cast<replay::GrowingFileSource*>(s.get()), nullptr);
  EXPECT_EQ(error, "");
}

TEST(OpenRecordingSource, OnlyHttpUrls) {
  std::string error;
  EXPECT_EQ(stream::open_recording_source("ftp://host/p0.replay", error), nullptr);
  EXPECT_EQ(error, "only http:// and https:// URLs, or a file path");
}

TEST(OpenRecordingSource, AnHttpUrlNeedsLibcurl) {
  std::string error;
  const auto s = stream::open_recording_source("https://cdn.example/p0.replay", error);
  if (stream::http_available()) {
    ASSERT_NE(s, nullptr);
    EXPECT_EQ(s->describe(), "https://cdn.example/p0.replay");
    EXPECT_EQ(error, "");
  } else {
    EXPECT_EQ(s, nullptr);
    EXPECT_EQ(error, "this build has no libcurl (HTTP sources)");
  }
}

}  // namespace
