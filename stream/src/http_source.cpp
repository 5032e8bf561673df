// HttpRangeSource (stream/http_source.h): libcurl's easy interface, one handle reused so the
// connection stays open between polls.
#include <lockstep/stream/http_source.h>

#include <algorithm>
#include <cstring>
#include <string_view>

#if LOCKSTEP_HAVE_CURL
#include <curl/curl.h>
#endif

namespace lockstep::stream {

namespace {
replay::ReplayStatus error(ErrorCode code, const std::string& url, std::uint64_t offset, const std::string& what) {
  replay::ReplayStatus st;
  st.code = code;
  st.offset = offset;
  st.message = url + ": byte " + std::to_string(offset) + ": " + what;
  return st;
}
}  // namespace

bool is_http_url(const std::string& text) noexcept {
  return text.rfind("http://", 0) == 0 || text.rfind("https://", 0) == 0;
}

std::unique_ptr<replay::ByteSource> open_recording_source(const std::string& source, std::string& error) {
  if (is_http_url(source)) {
    if (http_available()) return std::make_unique<HttpRangeSource>(source);
    error = "this build has no libcurl (HTTP sources)";
  } else if (source.find("://") != std::string::npos) {
    error = "only http:// and https:// URLs, or a file path";
  } else {
    return std::make_unique<replay::GrowingFileSource>(source);
  }
  return nullptr;
}

std::string HttpRangeSource::describe() const { return partial_ ? url_ + ".partial" : url_; }

#if LOCKSTEP_HAVE_CURL

bool http_available() noexcept {
  static const bool ok = curl_global_init(CURL_GLOBAL_DEFAULT) == CURLE_OK;
  return ok;
}

struct HttpRangeSource::Curl {
  CURL* handle = nullptr;
  std::span<std::byte> out;
  std::size_t got = 0;
  bool overflow = false;  // the server sent more than asked (it ignored the Range)
  ~Curl() {
    if (handle != nullptr) curl_easy_cleanup(handle);
  }
  static std::size_t on_data(char* data, std::size_t size, std::size_t n, void* self) {
    Curl& c = *static_cast<Curl*>(self);
    const std::size_t bytes = size * n;
    const std::size_t room = c.out.size() - c.got;
    if (bytes > room) {
      c.overflow = true;
      return 0;  // aborts the transfer: never buffer what was not asked for
    }
    std::memcpy(c.out.data() + c.got, data, bytes);
    c.got += bytes;
    return bytes;
  }
};

HttpRangeSource::HttpRangeSource(std::string url, long timeout_ms)
    : curl_(std::make_unique<Curl>()), url_(std::move(url)), timeout_ms_(timeout_ms) {}
HttpRangeSource::~HttpRangeSource() = default;

replay::ReplayStatus HttpRangeSource::read(std::uint64_t offset, std::span<std::byte> out, std::size_t& got) {
  got = 0;
  if (!is_http_url(url_)) return error(ErrorCode::InvalidArgument, url_, 0, "not an http:// or https:// URL");
  if (!http_available()) return error(ErrorCode::IoError, url_, 0, "libcurl could not be initialised");
  if (out.empty()) return replay::ReplayStatus::Ok();
  Curl& c = *curl_;
  if (c.handle == nullptr) {
    c.handle = curl_easy_init();
    if (c.handle == nullptr) return error(ErrorCode::IoError, url_, 0, "curl_easy_init failed");
  }
  // Twice at most: URL, then URL.partial (or back) when the name is not there (yet/any more).
  for (int attempt = 0; attempt < 2; ++attempt) {
    const std::string target = describe();
    const std::string range = std::to_string(offset) + "-" + std::to_string(offset + out.size() - 1);
    c.out = out;
    c.got = 0;
    c.overflow = false;
    curl_easy_reset(c.handle);
    curl_easy_setopt(c.handle, CURLOPT_URL, target.c_str());
    curl_easy_setopt(c.handle, CURLOPT_RANGE, range.c_str());
    curl_easy_setopt(c.handle, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(c.handle, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(c.handle, CURLOPT_FOLLOWLOCATION, 1L);
    curl_easy_setopt(c.handle, CURLOPT_MAXREDIRS, 5L);
    curl_easy_setopt(c.handle, CURLOPT_TIMEOUT_MS, timeout_ms_);
    curl_easy_setopt(c.handle, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(c.handle, CURLOPT_ACCEPT_ENCODING, nullptr);  // the bytes as stored: offsets must mean bytes
    curl_easy_setopt(c.handle, CURLOPT_WRITEFUNCTION, &Curl::on_data);
    curl_easy_setopt(c.handle, CURLOPT_WRITEDATA, &c);
    ++requests_;
    const CURLcode rc = curl_easy_perform(c.handle);
    long status = 0;
    curl_easy_getinfo(c.handle, CURLINFO_RESPONSE_CODE, &status);
    if (c.overflow || (rc == CURLE_OK && status == 200 && offset != 0))
      return error(ErrorCode::InvalidArgument, target, offset,
                   "the server ignores Range requests (answered " + std::to_string(status) +
                       " with the whole file): serve the recording with Range support");
    if (rc != CURLE_OK && rc != CURLE_WRITE_ERROR)
      return error(ErrorCode::IoError, target, offset, std::string("HTTP request failed: ") + curl_easy_strerror(rc));
    if (status == 206 || status == 200) {
      got = c.got;
      return replay::ReplayStatus::Ok();
    }
    if (status == 416) return replay::ReplayStatus::Ok();  // nothing beyond offset yet
    if (status == 404) {
      partial_ = !partial_;  // the recorder's name while it writes, or the final one after
      continue;
    }
    return error(ErrorCode::IoError, target, offset, "HTTP status " + std::to_string(status));
  }
  return replay::ReplayStatus::Ok();  // neither name exists yet: the recorder has not started
}

#else

bool http_available() noexcept { return false; }
struct HttpRangeSource::Curl {};
HttpRangeSource::HttpRangeSource(std::string url, long timeout_ms) : url_(std::move(url)), timeout_ms_(timeout_ms) {}
HttpRangeSource::~HttpRangeSource() = default;
replay::ReplayStatus HttpRangeSource::read(std::uint64_t, std::span<std::byte>, std::size_t& got) {
  got = 0;
  (void)timeout_ms_;  // used by the libcurl build only
  return error(ErrorCode::InvalidArgument, url_, 0, "this build has no libcurl (install libcurl4-openssl-dev and rebuild)");
}

#endif

}  // namespace lockstep::stream
