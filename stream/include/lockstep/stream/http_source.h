#pragma once
// A recording served over HTTP(S) while it grows (docs/rollback.md, "Spectators at scale").
//
// The player's recorder writes an append-only block file; any static web server or CDN that
// serves the file with Range requests (nginx, a bucket, a CDN edge) lets any number of
// watchers follow it, with the fan-out done by that infrastructure. HttpRangeSource is the
// replay::ByteSource of such a URL: each read() asks for the next bytes with
// `Range: bytes=OFFSET-LAST`; 206 gives them, 416 (range not satisfiable) means "nothing new
// yet", a 404 of URL while nothing was read tries URL.partial (the recorder's name until it
// closes) and back. libcurl does the HTTP, TLS and redirects (http and https only).
#include <lockstep/replay/replay_follow.h>

#include <cstdint>
#include <memory>
#include <string>

namespace lockstep::stream {

// True when this build has libcurl (every native build made by scripts/bootstrap).
bool http_available() noexcept;

// True for "http://..." and "https://..." (what HttpRangeSource accepts).
bool is_http_url(const std::string& text) noexcept;

// The source of a recording named by a watcher (`lockstep spectate --follow SOURCE`): an
// http:// or https:// URL is an HttpRangeSource (refused, "this build has no libcurl (HTTP
// sources)", without libcurl), any other "SCHEME://" is refused ("only http:// and https://
// URLs, or a file path"), anything else is a file path (replay::GrowingFileSource). Null with
// `error` set when refused.
std::unique_ptr<replay::ByteSource> open_recording_source(const std::string& source, std::string& error);

class HttpRangeSource final : public replay::ByteSource {
 public:
  // `timeout_ms` bounds each request (connect + transfer).
  explicit HttpRangeSource(std::string url, long timeout_ms = 5000);
  ~HttpRangeSource() override;
  HttpRangeSource(const HttpRangeSource&) = delete;
  HttpRangeSource& operator=(const HttpRangeSource&) = delete;

  replay::ReplayStatus read(std::uint64_t offset, std::span<std::byte> out, std::size_t& got) override;
  std::string describe() const override;
  std::uint64_t requests() const noexcept { return requests_; }

 private:
  struct Curl;
  std::unique_ptr<Curl> curl_;
  std::string url_;
  bool partial_ = false;  // reading URL.partial
  std::uint64_t requests_ = 0;
  long timeout_ms_;
};

}  // namespace lockstep::stream
