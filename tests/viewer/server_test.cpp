// viewer/server.h: what `view --serve` sets on its connections, read back from the sockets
// themselves (the hostile clients are tests/viewer/serve_hostile_test.py), and the loopback rule.
#include <lockstep/fixtures/fixtures.h>
#include <lockstep/viewer/view.h>

#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace {

using namespace lockstep::viewer;

const std::string kDuel = std::string(LOCKSTEP_SOURCE_DIR) + "/fixtures/duel/duel.replay";

// One HTTP/1.1 answer read off `sock`: its status line and body (by Content-Length).
struct Answer {
  std::string status, body;
};
Answer read_answer(int sock, std::string& pending) {
  Answer a;
  char buf[4096];
  std::size_t head_end;
  while ((head_end = pending.find("\r\n\r\n")) == std::string::npos) {
    const ssize_t n = ::recv(sock, buf, sizeof buf, 0);
    if (n <= 0) return a;
    pending.append(buf, static_cast<std::size_t>(n));
  }
  const std::string head = pending.substr(0, head_end);
  a.status = head.substr(0, head.find("\r\n"));
  const std::size_t cl = head.find("Content-Length: ");
  const std::size_t length = cl == std::string::npos ? 0 : std::stoul(head.substr(cl + 16));
  pending.erase(0, head_end + 4);
  while (pending.size() < length) {
    const ssize_t n = ::recv(sock, buf, sizeof buf, 0);
    if (n <= 0) return a;
    pending.append(buf, static_cast<std::size_t>(n));
  }
  a.body = pending.substr(0, length);
  pending.erase(0, length);
  return a;
}

// Playback asks one tick after another on one kept-alive connection. cpp-httplib writes an
// answer's head and body in two sends; with Nagle's algorithm the body waited for the client's
// delayed ACK of the head (~40 ms) on every reused connection. The accepted socket must have
// TCP_NODELAY, and both answers must come over the one connection.
TEST(Serve, KeptAliveConnectionHasNoDelay) {
  if (!server_available()) GTEST_SKIP() << "this build has no cpp-httplib";
  lockstep::fixtures::register_builtin_sims();
  ViewFile f;
  ASSERT_EQ(load_view_file(kDuel, f), "");

  std::mutex m;
  std::condition_variable cv;
  std::string url;
  std::vector<int> no_delay;  // TCP_NODELAY of each accepted socket, read back
  std::atomic<bool> stop{false};
  ServeOptions o;
  o.handle_signals = false;
  o.stop = &stop;
  o.index_bytes = 0;
  o.on_listening = [&](const std::string& u) {
    std::lock_guard<std::mutex> lock(m);
    url = u;
    cv.notify_all();
  };
  o.on_accept = [&](int sock) {
    int on = -1;
    socklen_t len = sizeof on;
    if (::getsockopt(sock, IPPROTO_TCP, TCP_NODELAY, &on, &len) != 0) on = -2;
    std::lock_guard<std::mutex> lock(m);
    no_delay.push_back(on);
  };
  std::string served;
  std::thread server([&] { served = serve(f.session, f.answer, o); });
  {
    std::unique_lock<std::mutex> lock(m);
    cv.wait(lock, [&] { return !url.empty(); });
  }
  const std::string authority = url.substr(7, url.size() - 8);  // "http://" ... "/"
  const int port = std::stoi(authority.substr(authority.find(':') + 1));

  const int sock = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in to{};
  to.sin_family = AF_INET;
  to.sin_port = htons(static_cast<std::uint16_t>(port));
  to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::connect(sock, reinterpret_cast<sockaddr*>(&to), sizeof to), 0);
  std::string pending;
  for (int tick : {1, 2}) {
    const std::string request = "GET /api/seek?tick=" + std::to_string(tick) + " HTTP/1.1\r\nHost: " + authority + "\r\n\r\n";
    ASSERT_EQ(::send(sock, request.data(), request.size(), 0), static_cast<ssize_t>(request.size()));
    const Answer a = read_answer(sock, pending);
    EXPECT_EQ(a.status, "HTTP/1.1 200 OK");
    EXPECT_EQ(a.body.rfind("{\"ok\":true,\"kind\":\"replay\",\"tick\":" + std::to_string(tick) + ",", 0), 0u)
        << a.body.substr(0, 80);
  }
  ::close(sock);
  stop.store(true);
  server.join();
  EXPECT_EQ(served, "");
  EXPECT_EQ(no_delay, std::vector<int>{1});  // one connection, Nagle off
}

TEST(Serve, LoopbackOnlyUnlessAllowed) {
  lockstep::fixtures::register_builtin_sims();
  EXPECT_FALSE(serves_beyond_loopback("127.0.0.1"));
  EXPECT_FALSE(serves_beyond_loopback("127.3.2.1"));
  EXPECT_FALSE(serves_beyond_loopback("::1"));
  EXPECT_FALSE(serves_beyond_loopback("::ffff:127.0.0.1"));
  EXPECT_FALSE(serves_beyond_loopback("localhost"));
  EXPECT_FALSE(serves_beyond_loopback(""));  // cpp-httplib then binds the loopback address
  EXPECT_FALSE(serves_beyond_loopback("no-such-host.invalid"));  // the bind fails and says so
  if (!server_available()) GTEST_SKIP() << "this build has no cpp-httplib";
  EXPECT_TRUE(serves_beyond_loopback("0.0.0.0"));
  EXPECT_TRUE(serves_beyond_loopback("::"));
  EXPECT_TRUE(serves_beyond_loopback("10.1.2.3"));
  EXPECT_TRUE(serves_beyond_loopback("::ffff:10.1.2.3"));

  Session none;
  ServeOptions o;
  o.host = "0.0.0.0";
  o.index_bytes = 0;
  o.handle_signals = false;
  EXPECT_EQ(serve(none, "", o), "0.0.0.0 is not a loopback address (allow remote addresses explicitly)");
  EXPECT_EQ(serve_file(kDuel, o), "view: cannot serve: 0.0.0.0 is not a loopback address (allow remote addresses explicitly)");
}

}  // namespace
