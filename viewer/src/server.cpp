// `lockstep view FILE --serve` (server.h): cpp-httplib answering the page from a Session.
// Built with the server only when CMake found cpp-httplib (LOCKSTEP_VIEWER_HTTPLIB); else
// serve() explains how to get it. Never compiled for emscripten.
#include <lockstep/viewer/page.h>
#include <lockstep/viewer/server.h>

#if LOCKSTEP_VIEWER_HTTPLIB
#include <httplib.h>

#include <pthread.h>
#include <signal.h>
#include <sys/socket.h>

#include <cerrno>
#include <chrono>
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

std::string serve(Session& session, const std::string& load_answer, const ServeOptions& options) {
  httplib::Server server;
  std::mutex session_mutex;  // httplib's workers are threads; a Session is not thread-safe
  std::string authority;     // "127.0.0.1:PORT", set once bound
  std::string local_authority;
  const std::string page = native_page("{\"mode\":\"http\"}", PageMode::Served);

  // cpp-httplib gives each connection a worker for as long as it is kept alive, and a
  // browser opens up to six per origin: eight workers, idle connections closed after 1 s, so
  // a new connection never waits for an idle one. Answers are serialised by session_mutex.
  server.new_task_queue = [] { return new httplib::ThreadPool(8); };
  server.set_keep_alive_timeout(1);
  // cpp-httplib's default sets SO_REUSEPORT, which lets a second process of the same user
  // bind the same port and take a share of the connections (a second `view --serve` did,
  // silently). SO_REUSEADDR only: a port in TIME_WAIT can be reused, a listening one cannot.
  server.set_socket_options([](socket_t sock) {
    int yes = 1;
    setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
  });
  server.set_payload_max_length(1024);  // GET only: any body is refused with 413
  server.set_keep_alive_max_count(100);
  server.set_read_timeout(5, 0);
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

std::string serve(Session&, const std::string&, const ServeOptions&) {
  return "this build has no HTTP server: cpp-httplib (Debian: libcpp-httplib-dev, installed by scripts/bootstrap) "
         "was not found when it was configured; `view FILE -o page.html` writes a page that needs none";
}

#endif

}  // namespace lockstep::viewer
