// Socket portability layer (udp_socket.h): the only file with platform socket calls.
#include "udp_socket.h"

#include <cstring>

#if defined(_WIN32)
#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif
#include <winsock2.h>
#include <ws2tcpip.h>
#include <atomic>
#else
#include <arpa/inet.h>
#include <cerrno>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>
#endif

namespace lockstep::rollback::net {

namespace {
#if defined(_WIN32)
using Native = SOCKET;
constexpr Native kInvalid = INVALID_SOCKET;
using SockLen = int;
// Winsock must be started once per process before the first socket call.
bool start_winsock(std::string& error) {
  // lockstep: allow(static) Winsock start-up is per process, outside any simulation
  static std::atomic<int> started{0};
  if (started.load() != 0) return true;
  WSADATA data;
  if (WSAStartup(MAKEWORD(2, 2), &data) != 0) {
    error = "WSAStartup failed";
    return false;
  }
  started.store(1);
  return true;
}
void close_native(Native s) noexcept { closesocket(s); }
bool set_nonblocking(Native s) noexcept {
  u_long on = 1;
  return ioctlsocket(s, FIONBIO, &on) == 0;
}
std::string last_error() { return "winsock error " + std::to_string(WSAGetLastError()); }
#else
using Native = int;
constexpr Native kInvalid = -1;
using SockLen = socklen_t;
bool start_winsock(std::string&) { return true; }
void close_native(Native s) noexcept { ::close(s); }
bool set_nonblocking(Native s) noexcept {
  const int flags = fcntl(s, F_GETFL, 0);
  return flags >= 0 && fcntl(s, F_SETFL, flags | O_NONBLOCK) == 0;
}
std::string last_error() { return std::strerror(errno); }
#endif
static_assert(sizeof(sockaddr_in6) <= sizeof(Address::storage), "Address::storage too small");

Native native(std::uint64_t h) noexcept { return static_cast<Native>(h); }
const sockaddr* sa(const Address& a) noexcept { return reinterpret_cast<const sockaddr*>(a.storage); }
}  // namespace

int Address::family() const noexcept { return length == 0 ? 0 : sa(*this)->sa_family; }

std::uint16_t Address::port() const noexcept {
  if (family() == AF_INET) return ntohs(reinterpret_cast<const sockaddr_in*>(storage)->sin_port);
  if (family() == AF_INET6) return ntohs(reinterpret_cast<const sockaddr_in6*>(storage)->sin6_port);
  return 0;
}

bool Address::is_loopback() const noexcept {
  if (family() == AF_INET) {
    const auto* in = reinterpret_cast<const sockaddr_in*>(storage);
    return (ntohl(in->sin_addr.s_addr) >> 24) == 127;
  }
  if (family() == AF_INET6) {
    const auto* in6 = reinterpret_cast<const sockaddr_in6*>(storage);
    static const unsigned char loop[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
    return std::memcmp(&in6->sin6_addr, loop, 16) == 0;
  }
  return false;
}

bool same_endpoint(const Address& a, const Address& b) noexcept {
  if (a.family() != b.family() || a.length == 0) return false;
  if (a.family() == AF_INET) {
    const auto* x = reinterpret_cast<const sockaddr_in*>(a.storage);
    const auto* y = reinterpret_cast<const sockaddr_in*>(b.storage);
    return x->sin_port == y->sin_port && x->sin_addr.s_addr == y->sin_addr.s_addr;
  }
  const auto* x = reinterpret_cast<const sockaddr_in6*>(a.storage);
  const auto* y = reinterpret_cast<const sockaddr_in6*>(b.storage);
  return x->sin6_port == y->sin6_port && std::memcmp(&x->sin6_addr, &y->sin6_addr, 16) == 0;
}

bool same_host(const Address& a, const Address& b) noexcept {
  if (a.family() != b.family() || a.length == 0) return false;
  if (a.family() == AF_INET)
    return reinterpret_cast<const sockaddr_in*>(a.storage)->sin_addr.s_addr ==
           reinterpret_cast<const sockaddr_in*>(b.storage)->sin_addr.s_addr;
  return std::memcmp(&reinterpret_cast<const sockaddr_in6*>(a.storage)->sin6_addr,
                     &reinterpret_cast<const sockaddr_in6*>(b.storage)->sin6_addr, 16) == 0;
}

std::uint32_t endpoint_bytes(const Address& a, std::byte out[kEndpointBytesMax]) noexcept {
  if (a.length == 0) return 0;
  std::uint32_t n = 0;
  if (a.family() == AF_INET) {
    const auto* in = reinterpret_cast<const sockaddr_in*>(a.storage);
    out[n++] = std::byte{4};
    std::memcpy(out + n, &in->sin_addr, 4);
    n += 4;
    std::memcpy(out + n, &in->sin_port, 2);
  } else {
    const auto* in6 = reinterpret_cast<const sockaddr_in6*>(a.storage);
    out[n++] = std::byte{6};
    std::memcpy(out + n, &in6->sin6_addr, 16);
    n += 16;
    std::memcpy(out + n, &in6->sin6_port, 2);
  }
  return n + 2;
}

bool parse_address(std::string_view text, Address& out, std::string& error) {
  out = Address{};
  std::string host;
  std::string_view port_text;
  bool v6 = false;
  if (!text.empty() && text.front() == '[') {
    const std::size_t close = text.find(']');
    if (close == std::string_view::npos || close + 1 >= text.size() || text[close + 1] != ':') {
      error = "expected [IPv6]:PORT, got '" + std::string(text) + "'";
      return false;
    }
    host = std::string(text.substr(1, close - 1));
    port_text = text.substr(close + 2);
    v6 = true;
  } else {
    const std::size_t colon = text.rfind(':');
    if (colon == std::string_view::npos || text.find(':') != colon) {
      error = "expected IPv4:PORT or [IPv6]:PORT, got '" + std::string(text) + "'";
      return false;
    }
    host = std::string(text.substr(0, colon));
    port_text = text.substr(colon + 1);
  }
  std::uint32_t port = 0;
  if (port_text.empty() || port_text.size() > 5) {
    error = "bad port in '" + std::string(text) + "'";
    return false;
  }
  for (char c : port_text) {
    if (c < '0' || c > '9') {
      error = "bad port in '" + std::string(text) + "'";
      return false;
    }
    port = port * 10 + static_cast<std::uint32_t>(c - '0');
  }
  if (port > 65535) {
    error = "port out of range in '" + std::string(text) + "'";
    return false;
  }
  if (v6) {
    sockaddr_in6 a{};
    a.sin6_family = AF_INET6;
    a.sin6_port = htons(static_cast<std::uint16_t>(port));
    if (inet_pton(AF_INET6, host.c_str(), &a.sin6_addr) != 1) {
      error = "not a numeric IPv6 address: '" + host + "'";
      return false;
    }
    std::memcpy(out.storage, &a, sizeof a);
    out.length = sizeof a;
  } else {
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(static_cast<std::uint16_t>(port));
    if (inet_pton(AF_INET, host.c_str(), &a.sin_addr) != 1) {
      error = "not a numeric IPv4 address: '" + host + "'";
      return false;
    }
    std::memcpy(out.storage, &a, sizeof a);
    out.length = sizeof a;
  }
  return true;
}

std::string format_address(const Address& a) {
  char buf[64] = {};
  if (a.family() == AF_INET) {
    sockaddr_in in{};
    std::memcpy(&in, a.storage, sizeof in);
    inet_ntop(AF_INET, &in.sin_addr, buf, sizeof buf);
    return std::string(buf) + ":" + std::to_string(a.port());
  }
  if (a.family() == AF_INET6) {
    sockaddr_in6 in6{};
    std::memcpy(&in6, a.storage, sizeof in6);
    inet_ntop(AF_INET6, &in6.sin6_addr, buf, sizeof buf);
    return "[" + std::string(buf) + "]:" + std::to_string(a.port());
  }
  return "(none)";
}

Socket::~Socket() { close(); }

bool Socket::is_open() const noexcept { return handle_ != ~std::uint64_t{0}; }

void Socket::close() noexcept {
  if (!is_open()) return;
  close_native(native(handle_));
  handle_ = ~std::uint64_t{0};
}

bool Socket::open(const Address& bind_to, std::string& error) {
  close();
  if (!start_winsock(error)) return false;
  if (!bind_to.valid()) {
    error = "no bind address";
    return false;
  }
  const Native s = ::socket(bind_to.family(), SOCK_DGRAM, IPPROTO_UDP);
  if (s == kInvalid) {
    error = "socket(): " + last_error();
    return false;
  }
  if (bind_to.family() == AF_INET6) {
    // An IPv6 socket talks IPv6 only, the same on every OS (the defaults differ).
    int on = 1;
    setsockopt(s, IPPROTO_IPV6, IPV6_V6ONLY, reinterpret_cast<const char*>(&on), sizeof on);
  }
  {
    // A larger receive buffer absorbs bursts (a catch-up, a flood being drained) instead of
    // dropping the real peers' datagrams behind them; best effort (the OS may cap it).
    int bytes = 4 << 20;
    setsockopt(s, SOL_SOCKET, SO_RCVBUF, reinterpret_cast<const char*>(&bytes), sizeof bytes);
  }
  if (!set_nonblocking(s)) {
    error = "cannot make the socket non-blocking: " + last_error();
    close_native(s);
    return false;
  }
  if (::bind(s, sa(bind_to), static_cast<SockLen>(bind_to.length)) != 0) {
    error = "bind(" + format_address(bind_to) + "): " + last_error();
    close_native(s);
    return false;
  }
  local_ = Address{};
  SockLen len = static_cast<SockLen>(sizeof local_.storage);
  if (::getsockname(s, reinterpret_cast<sockaddr*>(local_.storage), &len) != 0) {
    error = "getsockname(): " + last_error();
    close_native(s);
    return false;
  }
  local_.length = static_cast<std::uint32_t>(len);
  handle_ = static_cast<std::uint64_t>(s);
  return true;
}

bool Socket::send_to(const Address& to, std::span<const std::byte> bytes) noexcept {
  if (!is_open() || !to.valid()) return false;
#if defined(_WIN32)
  const int n = ::sendto(native(handle_), reinterpret_cast<const char*>(bytes.data()), static_cast<int>(bytes.size()), 0,
                         sa(to), static_cast<SockLen>(to.length));
  return n == static_cast<int>(bytes.size());
#else
  const ssize_t n = ::sendto(native(handle_), bytes.data(), bytes.size(), 0, sa(to), static_cast<SockLen>(to.length));
  return n == static_cast<ssize_t>(bytes.size());
#endif
}

std::uint32_t Socket::receive_from(Address& from, std::span<std::byte> out, bool& truncated) noexcept {
  truncated = false;
  if (!is_open()) return 0;
  // Errors from earlier sends (ICMP port unreachable: a peer that is gone) surface here on
  // some systems; they are skipped, a bounded number of times.
  for (int attempt = 0; attempt < 8; ++attempt) {
    SockLen len = static_cast<SockLen>(sizeof from.storage);
#if defined(_WIN32)
    const int n = ::recvfrom(native(handle_), reinterpret_cast<char*>(out.data()), static_cast<int>(out.size()), 0,
                             reinterpret_cast<sockaddr*>(from.storage), &len);
    if (n < 0) {
      const int e = WSAGetLastError();
      if (e == WSAEMSGSIZE) {  // the first out.size() bytes were received
        truncated = true;
        from.length = static_cast<std::uint32_t>(len);
        return static_cast<std::uint32_t>(out.size());
      }
      if (e == WSAECONNRESET) continue;
      return 0;
    }
#else
    const ssize_t n = ::recvfrom(native(handle_), out.data(), out.size(), MSG_TRUNC,
                                 reinterpret_cast<sockaddr*>(from.storage), &len);
    if (n < 0) {
      if (errno == ECONNREFUSED || errno == EINTR) continue;
      return 0;
    }
    if (static_cast<std::size_t>(n) > out.size()) {
      truncated = true;  // MSG_TRUNC reports the real length
      from.length = static_cast<std::uint32_t>(len);
      return static_cast<std::uint32_t>(out.size());
    }
#endif
    from.length = static_cast<std::uint32_t>(len);
    return static_cast<std::uint32_t>(n);
  }
  return 0;
}

}  // namespace lockstep::rollback::net
