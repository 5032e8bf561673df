// `lockstep view FILE --serve` (server.h): cpp-httplib answering the page from a Session.
// Built with the server only when CMake found cpp-httplib (LOCKSTEP_VIEWER_HTTPLIB); else
// serve() explains how to get it. Never compiled for emscripten.
#include <lockstep/viewer/page.h>
#include <lockstep/viewer/server.h>

#if LOCKSTEP_VIEWER_HTTPLIB
#include <httplib.h>

#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <mutex>
#include <thread>
#endif

#include <optional>
#include <string>
#include <string_view>

namespace lockstep::viewer {

#if LOCKSTEP_VIEWER_HTTPLIB
bool server_available() noexcept { return true; }

namespace {

constexpr int kReadTimeoutSeconds = 5;  // the longest wait for a byte of a request
constexpr std::size_t kMaxQuery = 256;  // the longest valid query is ~40 bytes
// With the charset named, cpp-httplib does not compress the answer: Debian's build has brotli,
// and compressing a 350 kB frame (10,000 units) at brotli's default quality took 2-4 s per
// seek for a browser (which sends Accept-Encoding: br) against 0.13 s to compute it. The
// page is on loopback: bytes are free, time is not.
constexpr const char* kJson = "application/json; charset=utf-8";

// A plain decimal number in [0, max]: no sign, no spaces, no hex, at most 20 digits.
std::optional<std::uint64_t> parse_number(const std::string& text, std::uint64_t max) {
  if (text.empty() || text.size() > 20) return std::nullopt;
  std::uint64_t v = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    const auto d = static_cast<std::uint64_t>(c - '0');
    if (v > (max - d) / 10) return std::nullopt;
    v = v * 10 + d;
  }
  return v;
}

std::string error_json(std::string_view message) {
  std::string o = "{\"ok\":false,\"error\":\"";
  for (char c : message) {
    if (c == '"' || c == '\\') o += '\\';
    if (static_cast<unsigned char>(c) >= 0x20) o += c;
  }
  return o + "\"}";
}

void refuse(httplib::Response& res, int status, std::string_view why) {
  res.status = status;
  res.set_content(error_json(why), kJson);
}

// The query's parameters must be exactly `names`, each once.
bool exact_params(const httplib::Request& req, std::initializer_list<const char*> names, httplib::Response& res) {
  std::size_t known = 0;
  for (const char* n : names) {
    if (req.get_param_value_count(n) != 1) {
      refuse(res, 400, std::string("expected exactly one '") + n + "' parameter");
      return false;
    }
    ++known;
  }
  if (req.params.size() != known) {
    refuse(res, 400, "unexpected query parameters");
    return false;
  }
  return true;
}

// --- Connection handling -------------------------------------------------------------------
// cpp-httplib 0.11.4 (Debian's, a shared library: its CPPHTTPLIB_* limits are compiled in) reads
// header lines until the blank line with no bound on their number or total size (upstream bounds
// the count from 0.22.0, CPPHTTPLIB_HEADER_MAX_COUNT), gives a request no deadline (a client
// sending one byte every 2 s never meets the 5 s read timeout), queues accepted connections
// without bound behind its workers, and answers a Range header of any number of ranges with a
// multipart body built in memory (bounded upstream from 0.15.1, CPPHTTPLIB_RANGE_MAX_COUNT).
// Ranges are of no use to the page: they are ignored.
// Its hook for all of these is the connection: Server::process_and_close_socket is virtual and
// Server::process_request (one request over any Stream) protected. So the connection loop below
// is ours: a Stream over the socket that bounds each request's head in bytes, lines and time,
// a worker pool that refuses a connection it has no worker for, and the Range guard in
// process_request's setup hook. Parsing, routing and writing stay cpp-httplib's.

enum class HeadLimit : std::uint8_t { None, Size, Lines, Time };

using Clock = std::chrono::steady_clock;

// One accepted socket as a cpp-httplib Stream, for the whole connection (its read buffer then
// survives between kept-alive requests). While a request's head (request line and header
// lines, up to the blank line) is read, it counts bytes and lines and keeps the deadline; a
// limit ends the head: read() fails from then on and head_limit() says which.
class GuardedStream final : public httplib::Stream {
 public:
  GuardedStream(socket_t sock, std::chrono::milliseconds read_timeout, std::chrono::milliseconds write_timeout,
                const std::atomic<socket_t>& listening)
      : sock_(sock), read_timeout_(read_timeout), write_timeout_(write_timeout), listening_(listening) {}

  // Waits up to `idle` for the next request's first byte (false: none came, the peer left, or
  // the server is stopping), then starts counting its head.
  bool next_request(std::chrono::milliseconds idle) {
    if (limit_ != HeadLimit::None) return false;
    if (off_ == size_ && !wait(POLLIN, Clock::now() + idle)) return false;
    in_head_ = true;
    head_bytes_ = 0;
    head_lines_ = 0;
    line_bytes_ = 0;
    deadline_ = Clock::now() + std::chrono::seconds(kServeHeadSeconds);
    return true;
  }
  HeadLimit head_limit() const { return limit_; }

  bool is_readable() const override { return off_ < size_ || wait(POLLIN, Clock::now() + read_timeout_); }
  bool is_writable() const override { return wait(POLLOUT, Clock::now() + write_timeout_); }

  ssize_t read(char* ptr, std::size_t size) override {
    if (limit_ != HeadLimit::None) return -1;
    if (off_ == size_) {
      const Clock::time_point until = in_head_ ? std::min(deadline_, Clock::now() + read_timeout_)
                                               : Clock::now() + read_timeout_;
      if (!wait(POLLIN, until)) {
        if (in_head_ && listening_.load() != INVALID_SOCKET && Clock::now() >= until) limit_ = HeadLimit::Time;
        return -1;
      }
      ssize_t n;
      do n = ::recv(sock_, buf_.data(), buf_.size(), 0);
      while (n < 0 && errno == EINTR);
      if (n <= 0) return n;
      off_ = 0;
      size_ = static_cast<std::size_t>(n);
    }
    std::size_t n = std::min(size, size_ - off_);
    if (in_head_) n = count_head(n);
    std::memcpy(ptr, buf_.data() + off_, n);
    off_ += n;
    return static_cast<ssize_t>(n);
  }

  ssize_t write(const char* ptr, std::size_t size) override {
    if (!is_writable()) return -1;
    ssize_t n;
    do n = ::send(sock_, ptr, size, MSG_NOSIGNAL);
    while (n < 0 && errno == EINTR);
    return n;
  }

  void get_remote_ip_and_port(std::string& ip, int& port) const override { address(::getpeername, ip, port); }
  void get_local_ip_and_port(std::string& ip, int& port) const override { address(::getsockname, ip, port); }
  socket_t socket() const override { return sock_; }

 private:
  // How many of the next `n` buffered bytes are handed out: all of them, counted, up to and
  // including the head's blank line; a limit crossed stops before the byte that crossed it.
  std::size_t count_head(std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) {
      const char c = buf_[off_ + i];
      if (++head_bytes_ > kServeMaxHeadBytes) {
        limit_ = HeadLimit::Size;
        return i;
      }
      if (c != '\n') {
        if (c != '\r') ++line_bytes_;
        continue;
      }
      if (line_bytes_ == 0 && head_lines_ > 0) {  // the blank line: the head is complete
        in_head_ = false;
        return i + 1;
      }
      line_bytes_ = 0;
      if (++head_lines_ > kServeMaxHeaderLines + 1) {  // + the request line
        limit_ = HeadLimit::Lines;
        return i + 1;
      }
    }
    return n;
  }

  // Polls in slices so that a stopping server is noticed within 100 ms.
  bool wait(short events, Clock::time_point until) const {
    for (;;) {
      if (listening_.load() == INVALID_SOCKET) return false;
      // Rounded up: false only once `until` has passed (read() tells a deadline from a timeout so).
      const auto left = std::chrono::ceil<std::chrono::milliseconds>(until - Clock::now()).count();
      if (left <= 0) return false;
      pollfd p{sock_, events, 0};
      const int r = ::poll(&p, 1, static_cast<int>(std::min<long long>(left, 100)));
      if (r > 0) return true;
      if (r < 0 && errno != EINTR) return false;
    }
  }

  template <class Name>
  void address(Name name, std::string& ip, int& port) const {
    sockaddr_storage a{};
    socklen_t len = sizeof a;
    if (name(sock_, reinterpret_cast<sockaddr*>(&a), &len) != 0) return;
    std::array<char, NI_MAXHOST> host{};
    std::array<char, NI_MAXSERV> serv{};
    if (::getnameinfo(reinterpret_cast<sockaddr*>(&a), len, host.data(), host.size(), serv.data(), serv.size(),
                      NI_NUMERICHOST | NI_NUMERICSERV) != 0)
      return;
    ip = host.data();
    port = std::atoi(serv.data());
  }

  socket_t sock_;
  std::chrono::milliseconds read_timeout_, write_timeout_;
  const std::atomic<socket_t>& listening_;
  std::array<char, 4096> buf_{};
  std::size_t off_ = 0, size_ = 0;
  bool in_head_ = false;
  std::size_t head_bytes_ = 0, head_lines_ = 0, line_bytes_ = 0;
  Clock::time_point deadline_{};
  HeadLimit limit_ = HeadLimit::None;
};

// The stream of the request this worker thread is answering: the error handler turns
// cpp-httplib's 400 for a head it could not read into the limit's own status.
thread_local const GuardedStream* t_stream = nullptr;
// Set while the accepting thread hands over a connection no worker is free for.
thread_local bool t_refuse = false;

// httplib::ThreadPool with the connections it holds counted: a connection beyond its workers
// is not queued behind slow ones (cpp-httplib's queue has no bound) but run at once with
// t_refuse set, which answers 503 and closes it.
class ConnectionPool final : public httplib::TaskQueue {
 public:
  explicit ConnectionPool(std::size_t workers) : pool_(workers), workers_(workers) {}
  void enqueue(std::function<void()> fn) override {
    if (held_.fetch_add(1) >= workers_) {
      held_.fetch_sub(1);
      t_refuse = true;
      fn();
      t_refuse = false;
      return;
    }
    pool_.enqueue([this, fn = std::move(fn)] {
      fn();
      held_.fetch_sub(1);
    });
  }
  void shutdown() override { pool_.shutdown(); }

 private:
  httplib::ThreadPool pool_;
  const std::size_t workers_;
  std::atomic<std::size_t> held_{0};
};

// Reads and drops what the client still sends (at most 1 MiB, 1 s) after its refusal was
// written and our side shut down, so that closing does not reset the connection before the
// client has read the refusal.
void linger(socket_t sock) {
  const Clock::time_point until = Clock::now() + std::chrono::seconds(1);
  std::array<char, 4096> sink;
  for (std::size_t total = 0; total < (std::size_t{1} << 20);) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - Clock::now()).count();
    pollfd p{sock, POLLIN, 0};
    if (left <= 0 || ::poll(&p, 1, static_cast<int>(left)) <= 0) return;
    const ssize_t n = ::recv(sock, sink.data(), sink.size(), 0);
    if (n <= 0) return;
    total += static_cast<std::size_t>(n);
  }
}

class GuardedServer final : public httplib::Server {
 public:
  explicit GuardedServer(std::function<void(int)> on_accept) : on_accept_(std::move(on_accept)) {}

 private:
  bool process_and_close_socket(socket_t sock) override {
    if (t_refuse) return refuse_connection(sock);
    if (on_accept_) on_accept_(sock);
    GuardedStream strm(sock, seconds_ms(read_timeout_sec_, read_timeout_usec_),
                       seconds_ms(write_timeout_sec_, write_timeout_usec_), svr_sock_);
    bool ret = false;
    for (std::size_t left = keep_alive_max_count_; left > 0; --left) {
      if (!strm.next_request(std::chrono::seconds(keep_alive_timeout_sec_))) break;
      bool closed = false;
      t_stream = &strm;
      ret = process_request(strm, left == 1, closed, [](httplib::Request& req) {
        // RFC 9110 14.2: a server may ignore Range, and the page never sends one. Kept, each
        // range would be a copy of the answer in a multipart body built in memory; a single
        // one would come back as a 200 with part of the answer (the handlers set the status).
        req.ranges.clear();
      });
      t_stream = nullptr;
      if (!ret || closed || strm.head_limit() != HeadLimit::None) break;
    }
    if (strm.head_limit() != HeadLimit::None) {
      // The client may still be sending the head it was refused for: closing now would
      // reset the connection and could lose the refusal on its way.
      ::shutdown(sock, SHUT_WR);
      linger(sock);
    } else {
      ::shutdown(sock, SHUT_RDWR);
    }
    ::close(sock);
    return ret;
  }

  // On the accepting thread, so nothing here waits: the answer is written without reading
  // the request (it fits the socket's empty send buffer), what already arrived is dropped.
  static bool refuse_connection(socket_t sock) {
    static const std::string body = error_json("too many connections (" + std::to_string(kServeMaxConnections) +
                                               " open); retry when one closes");
    static const std::string answer = "HTTP/1.1 503 Service Unavailable\r\nContent-Type: " + std::string(kJson) +
                                      "\r\nContent-Length: " + std::to_string(body.size()) +
                                      "\r\nConnection: close\r\nRetry-After: 1\r\n\r\n" + body;
    const bool sent = ::send(sock, answer.data(), answer.size(), MSG_NOSIGNAL | MSG_DONTWAIT) ==
                      static_cast<ssize_t>(answer.size());
    ::shutdown(sock, SHUT_WR);
    std::array<char, 4096> sink;
    for (int i = 0; i < 16 && ::recv(sock, sink.data(), sink.size(), MSG_DONTWAIT) > 0; ++i) {
    }
    ::close(sock);
    return sent;
  }

  static std::chrono::milliseconds seconds_ms(time_t sec, time_t usec) {
    return std::chrono::milliseconds(static_cast<long long>(sec) * 1000 + static_cast<long long>(usec) / 1000);
  }

  std::function<void(int)> on_accept_;
};

// Stops `server` on SIGINT/SIGTERM, waiting with sigtimedwait (the signals are blocked in
// every thread of the server, so none is delivered elsewhere) until `done`.
void signal_watch(httplib::Server& server, const sigset_t& set, std::atomic<bool>& done, std::atomic<bool>* stop) {
  while (!done.load()) {
    timespec wait{0, 100 * 1000 * 1000};
    siginfo_t info;
    const int sig = sigtimedwait(&set, &info, &wait);
    if (sig == SIGINT || sig == SIGTERM || (stop != nullptr && stop->load())) {
      server.stop();
      return;
    }
  }
}

}  // namespace

// As cpp-httplib resolves the host it binds (getaddrinfo, any family, no flags; an empty host
// is the loopback address then).
bool serves_beyond_loopback(const std::string& host) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (::getaddrinfo(host.empty() ? nullptr : host.c_str(), "0", &hints, &found) != 0) return false;
  bool beyond = false;
  for (const addrinfo* a = found; a != nullptr; a = a->ai_next) {
    if (a->ai_family == AF_INET) {
      const auto* in = reinterpret_cast<const sockaddr_in*>(a->ai_addr);
      beyond |= (ntohl(in->sin_addr.s_addr) >> 24) != 127;
    } else if (a->ai_family == AF_INET6) {
      const auto* in6 = reinterpret_cast<const sockaddr_in6*>(a->ai_addr);
      const bool mapped_loopback = IN6_IS_ADDR_V4MAPPED(&in6->sin6_addr) && in6->sin6_addr.s6_addr[12] == 127;
      beyond |= !IN6_IS_ADDR_LOOPBACK(&in6->sin6_addr) && !mapped_loopback;
    } else {
      beyond = true;
    }
  }
  ::freeaddrinfo(found);
  return beyond;
}

std::string serve(Session& session, const std::string& load_answer, const ServeOptions& options) {
  if (options.loopback_only && serves_beyond_loopback(options.host))
    return options.host + " is not a loopback address (allow remote addresses explicitly)";
  GuardedServer server(options.on_accept);
  std::mutex session_mutex;  // httplib's workers are threads; a Session is not thread-safe
  std::string authority;     // "127.0.0.1:PORT", set once bound
  std::string local_authority;
  const std::string page = native_page("{\"mode\":\"http\"}", PageMode::Served);

  // cpp-httplib gives each connection a worker for as long as it is kept alive, and a
  // browser opens up to six per origin: kServeMaxConnections workers (ConnectionPool refuses
  // one more), idle connections closed after 1 s. Answers are serialised by session_mutex.
  server.new_task_queue = [] { return new ConnectionPool(kServeMaxConnections); };
  server.set_keep_alive_timeout(1);
  // cpp-httplib writes an answer's head and its body in two sends. With Nagle's algorithm on,
  // the body waits for the ACK of the head, which the client delays (~40 ms on Linux) once a
  // connection is past its first exchanges: every answer on a kept-alive connection came
  // ~44 ms late (playback at ~11 ticks/s). Accepted sockets inherit TCP_NODELAY from the
  // listening one (docs/viewer.md, "Latency").
  server.set_tcp_nodelay(true);
  // cpp-httplib's default sets SO_REUSEPORT, which lets a second process of the same user
  // bind the same port and take a share of the connections (a second `view --serve` did,
  // silently). SO_REUSEADDR only: a port in TIME_WAIT can be reused, a listening one cannot.
  server.set_socket_options([](socket_t sock) {
    int yes = 1;
    setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
  });
  server.set_payload_max_length(1024);  // GET only: any body is refused with 413
  server.set_keep_alive_max_count(100);
  server.set_read_timeout(kReadTimeoutSeconds, 0);
  server.set_write_timeout(5, 0);
  server.set_default_headers({{"Cache-Control", "no-store"},
                              {"X-Content-Type-Options", "nosniff"},
                              {"Referrer-Policy", "no-referrer"},
                              {"Cross-Origin-Resource-Policy", "same-origin"},
                              {"X-Frame-Options", "DENY"}});
  server.set_pre_routing_handler([&](const httplib::Request& req, httplib::Response& res) {
    // DNS rebinding: a page of another site, its name rebound to 127.0.0.1, sends its own
    // name as Host. Only this server's own authority is answered.
    const std::string host = req.get_header_value("Host");
    if (req.get_header_value_count("Host") != 1 || (host != authority && host != local_authority)) {
      refuse(res, 403, "unexpected Host header (this server answers " + authority + " only)");
      return httplib::Server::HandlerResponse::Handled;
    }
    if (req.method != "GET" && req.method != "HEAD") {
      refuse(res, 405, "only GET");
      return httplib::Server::HandlerResponse::Handled;
    }
    const std::size_t q = req.target.find('?');
    if (q != std::string::npos && req.target.size() - q - 1 > kMaxQuery) {
      refuse(res, 414, "query string too long");
      return httplib::Server::HandlerResponse::Handled;
    }
    return httplib::Server::HandlerResponse::Unhandled;
  });
  server.set_error_handler([](const httplib::Request&, httplib::Response& res) {
    // cpp-httplib answers 400 to a head it could not read; GuardedStream knows when a limit
    // stopped the reading.
    const HeadLimit limit = t_stream != nullptr ? t_stream->head_limit() : HeadLimit::None;
    if (res.status == 400 && limit != HeadLimit::None) {
      res.set_header("Connection", "close");
      if (limit == HeadLimit::Time)
        return refuse(res, 408, "request head not received in time (all of it within " + std::to_string(kServeHeadSeconds) +
                                    " s, no pause over " + std::to_string(kReadTimeoutSeconds) + " s)");
      return refuse(res, 431, "request head too large: at most " + std::to_string(kServeMaxHeadBytes) + " bytes and " +
                                  std::to_string(kServeMaxHeaderLines) + " header lines");
    }
    if (res.body.empty()) res.set_content(error_json("HTTP " + std::to_string(res.status)), kJson);
  });
  server.set_exception_handler([](const httplib::Request&, httplib::Response& res, std::exception_ptr) {
    refuse(res, 500, "internal error");
  });

  server.Get("/", [&](const httplib::Request& req, httplib::Response& res) {
    if (!req.params.empty()) return refuse(res, 400, "unexpected query parameters");
    res.set_header("Content-Security-Policy",
                   "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; "
                   "connect-src 'self'; frame-ancestors 'none'");
    res.set_content(page, "text/html; charset=utf-8");
  });
  server.Get("/api/info", [&](const httplib::Request& req, httplib::Response& res) {
    if (!exact_params(req, {}, res)) return;
    res.set_content(load_answer, kJson);
  });
  server.Get("/api/seek", [&](const httplib::Request& req, httplib::Response& res) {
    if (!exact_params(req, {"tick"}, res)) return;
    const auto tick = parse_number(req.get_param_value("tick"), UINT64_MAX);
    if (!tick) return refuse(res, 400, "tick: expected a decimal number");
    std::lock_guard<std::mutex> lock(session_mutex);
    const std::string frame = session.seek(*tick);
    res.status = session.error().empty() ? 200 : 400;
    res.set_content(frame, kJson);
  });
  server.Get("/api/entity", [&](const httplib::Request& req, httplib::Response& res) {
    if (!exact_params(req, {"side", "slot", "tick"}, res)) return;
    const auto side = parse_number(req.get_param_value("side"), UINT32_MAX);
    const auto slot = parse_number(req.get_param_value("slot"), UINT32_MAX);
    const auto tick = parse_number(req.get_param_value("tick"), UINT64_MAX);
    if (!side || !slot || !tick) return refuse(res, 400, "side, slot, tick: expected decimal numbers (side, slot below 2^32)");
    std::lock_guard<std::mutex> lock(session_mutex);
    // The entity at the tick the page shows: another tab may have moved the Session since.
    const std::string frame = session.seek(*tick);
    if (!session.error().empty()) {
      res.status = 400;
      return res.set_content(frame, kJson);
    }
    res.set_content(session.entity(static_cast<std::uint32_t>(*side), static_cast<std::uint32_t>(*slot)),
                    kJson);
  });

  // Signals: blocked before any server thread exists (threads inherit the mask), taken by
  // the watcher. SIGPIPE too: a browser closing a connection mid-answer must not kill us.
  sigset_t set, old;
  sigemptyset(&set);
  sigaddset(&set, SIGPIPE);
  if (options.handle_signals) {
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
  }
  pthread_sigmask(SIG_BLOCK, &set, &old);
  struct Restore {
    sigset_t mask;
    ~Restore() { pthread_sigmask(SIG_SETMASK, &mask, nullptr); }
  } restore{old};

  if (options.index_bytes != 0)
    if (std::string e = session.index(options.index_bytes); !e.empty()) return e;
  int port = options.port;
  if (port == 0) {
    port = server.bind_to_any_port(options.host);
    if (port < 0) return "cannot listen on " + options.host + ": no free port";
  } else if (!server.bind_to_port(options.host, port)) {
    return "cannot listen on " + options.host + ":" + std::to_string(port) + " (in use, or not an address of this machine)";
  }
  authority = (options.host.find(':') != std::string::npos ? "[" + options.host + "]" : options.host) + ":" +
              std::to_string(port);
  local_authority = "localhost:" + std::to_string(port);
  std::atomic<bool> done{false};
  sigset_t watch;
  sigemptyset(&watch);
  if (options.handle_signals) {
    sigaddset(&watch, SIGINT);
    sigaddset(&watch, SIGTERM);
  }
  std::thread watcher([&] { signal_watch(server, watch, done, options.stop); });
  if (options.on_listening) options.on_listening("http://" + authority + "/");
  const bool ok = server.listen_after_bind();
  done.store(true);
  server.stop();
  watcher.join();
  // A SIGPIPE left pending by a closed connection would be delivered (and kill us) when the
  // mask is restored: take it now.
  sigset_t pipe;
  sigemptyset(&pipe);
  sigaddset(&pipe, SIGPIPE);
  timespec zero{0, 0};
  while (sigtimedwait(&pipe, nullptr, &zero) == SIGPIPE) {
  }
  return ok ? "" : "the server stopped with an error";
}

#else  // no cpp-httplib in this build

bool server_available() noexcept { return false; }

bool serves_beyond_loopback(const std::string&) { return false; }  // nothing listens in this build

std::string serve(Session&, const std::string&, const ServeOptions&) {
  return "this build has no HTTP server: cpp-httplib (Debian: libcpp-httplib-dev, installed by scripts/bootstrap) "
         "was not found when it was configured; `view FILE -o page.html` writes a page that needs none";
}

#endif

}  // namespace lockstep::viewer
