#pragma once
// `lockstep view FILE --serve`: the viewer page and its answers over HTTP from this process
// (docs/viewer.md). cpp-httplib (Debian's libcpp-httplib-dev), never a hand-written server.
//
// Bounds (an attacker may reach a local port: other users of the machine, a web page in the
// same browser through DNS rebinding; docs/viewer.md, "Limits"):
//   - binds 127.0.0.1 (ServeOptions::host); an address beyond loopback is refused unless
//     ServeOptions::loopback_only is false;
//   - serves only the file it was started with: the routes are fixed (GET /, /api/info,
//     /api/seek?tick=N, /api/entity?side=S&slot=N&tick=T); no route takes a path;
//   - answers only requests whose Host header names this server (127.0.0.1:PORT or
//     localhost:PORT): a rebound DNS name is refused (403);
//   - refuses oversized requests: a body (413), a URI (414), a request head (request line and
//     header lines) beyond kServeMaxHeadBytes or kServeMaxHeaderLines lines (431), query
//     strings longer than 256 bytes, unknown or repeated parameters, numbers that are not plain
//     decimal or out of range (400);
//   - a request head must arrive within kServeHeadSeconds of its first byte, with no pause
//     over 5 s (408, or the connection closed when not even the request line came), so slow
//     clients hold a worker for a bounded time;
//   - kServeMaxConnections connections at once, one worker each; one more is answered 503
//     and closed at once instead of waiting behind them;
//   - a Range header is ignored (the whole answer, once);
//   - answers serialised: a Session is not thread-safe;
//   - SIGINT/SIGTERM (Ctrl-C) stop it cleanly (serve returns ""); a browser that closes its
//     connections mid-answer costs nothing (no SIGPIPE: the signal is blocked while serving).
#include <lockstep/viewer/session.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>

namespace lockstep::viewer {

// The limits above (docs/viewer.md, "Limits").
inline constexpr std::size_t kServeMaxConnections = 32;       // a browser opens at most 6 per origin
inline constexpr std::size_t kServeMaxHeadBytes = 32 * 1024;  // request line + header lines
inline constexpr std::size_t kServeMaxHeaderLines = 100;      // header lines after the request line
inline constexpr int kServeHeadSeconds = 10;

struct ServeOptions {
  std::string host = "127.0.0.1";
  std::uint16_t port = 0;  // 0: any free port (the URL says which)
  // Refuse a host that is not a loopback address (serves_beyond_loopback) before binding.
  bool loopback_only = true;
  // Called once listening, with the page's URL (the tool prints it).
  std::function<void(const std::string& url)> on_listening;
  // Set from another thread to stop (tests); SIGINT/SIGTERM also stop when handle_signals.
  std::atomic<bool>* stop = nullptr;
  bool handle_signals = true;
  // In-memory checkpoints built before listening (Session::index): seeks then cost at most
  // one interval of re-simulation. 0: none.
  std::uint64_t index_bytes = std::uint64_t{64} << 20;
  // Tests: called in the connection's worker with each accepted socket, before its first
  // request is read (e.g. to read its options back with getsockopt).
  std::function<void(int socket)> on_accept;
};

// True when listening on `host` would accept connections from beyond this machine: some address
// it resolves to (as the server resolves it) is not a loopback address (127.0.0.0/8, ::1).
// A name that does not resolve: false (the bind then fails and says so).
bool serves_beyond_loopback(const std::string& host);

// True when this build has the server (cpp-httplib was found); else serve() says so.
bool server_available() noexcept;

// Serves `session` (already loaded; `load_answer` is what load() returned, `name` the file
// name shown) until stopped. Returns "" after a clean stop, else what went wrong (port in
// use, an address beyond loopback while loopback_only, no cpp-httplib in this build).
std::string serve(Session& session, const std::string& load_answer, const ServeOptions& options);

}  // namespace lockstep::viewer
