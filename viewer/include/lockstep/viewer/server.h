#pragma once
// `lockstep view FILE --serve`: the viewer page and its answers over HTTP from this process
// (docs/viewer.md). cpp-httplib (Debian's libcpp-httplib-dev), never a hand-written server.
//
// Bounds (an attacker may reach a local port: other users of the machine, a web page in the
// same browser through DNS rebinding):
//   - binds 127.0.0.1 (ServeOptions::host) — loopback only unless told otherwise;
//   - serves only the file it was started with: the routes are fixed (GET /, /api/info,
//     /api/seek?tick=N, /api/entity?side=S&slot=N&tick=T); no route takes a path;
//   - answers only requests whose Host header names this server (127.0.0.1:PORT or
//     localhost:PORT): a rebound DNS name is refused (403);
//   - refuses oversized requests: a body (413), a URI (414) or header beyond cpp-httplib's
//     limits, query strings longer than 256 bytes, unknown or repeated parameters, numbers
//     that are not plain decimal or out of range (400);
//   - one worker thread, answers serialised: a Session is not thread-safe;
//   - SIGINT/SIGTERM (Ctrl-C) stop it cleanly (serve returns ""); a browser that closes its
//     connections mid-answer costs nothing (no SIGPIPE: the signal is blocked while serving).
#include <lockstep/viewer/session.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>

namespace lockstep::viewer {

struct ServeOptions {
  std::string host = "127.0.0.1";
  std::uint16_t port = 0;  // 0: any free port (the URL says which)
  // Called once listening, with the page's URL (the tool prints it).
  std::function<void(const std::string& url)> on_listening;
  // Set from another thread to stop (tests); SIGINT/SIGTERM also stop when handle_signals.
  std::atomic<bool>* stop = nullptr;
  bool handle_signals = true;
  // In-memory checkpoints built before listening (Session::index): seeks then cost at most
  // one interval of re-simulation. 0: none.
  std::uint64_t index_bytes = std::uint64_t{64} << 20;
};

// True when this build has the server (cpp-httplib was found); else serve() says so.
bool server_available() noexcept;

// Serves `session` (already loaded; `load_answer` is what load() returned, `name` the file
// name shown) until stopped. Returns "" after a clean stop, else what went wrong (port in
// use, no cpp-httplib in this build).
std::string serve(Session& session, const std::string& load_answer, const ServeOptions& options);

}  // namespace lockstep::viewer
