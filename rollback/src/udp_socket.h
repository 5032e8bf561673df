#pragma once
// The socket portability layer under UdpTransport: POSIX sockets or Winsock 2, IPv4 or IPv6,
// non-blocking datagram sockets. Nothing else in the project includes a socket header.
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace lockstep::rollback::net {

// A socket address in a fixed buffer (sockaddr_in or sockaddr_in6), comparable byte-wise
// on the fields that identify a sender (family, address, port).
struct Address {
  alignas(8) std::byte storage[32] = {};  // >= sizeof(sockaddr_in6) on every target
  std::uint32_t length = 0;               // 0: no address
  bool valid() const noexcept { return length != 0; }
  int family() const noexcept;
  std::uint16_t port() const noexcept;
  bool is_loopback() const noexcept;
};
bool same_endpoint(const Address& a, const Address& b) noexcept;
// The same host (address), whatever the ports.
bool same_host(const Address& a, const Address& b) noexcept;
// The endpoint as bytes (a family byte, the 4 or 16 address bytes, the 2 port bytes): what a
// cookie binds to. Returns how many bytes were written (0: no address).
inline constexpr std::uint32_t kEndpointBytesMax = 1 + 16 + 2;
std::uint32_t endpoint_bytes(const Address& a, std::byte out[kEndpointBytesMax]) noexcept;

// Numeric "HOST:PORT" with HOST an IPv4 dotted quad, or "[HOST]:PORT" with an IPv6 address
// (no name resolution: a hostname is an error). Returns false and sets `error`.
bool parse_address(std::string_view text, Address& out, std::string& error);
std::string format_address(const Address& a);

class Socket {
 public:
  Socket() noexcept = default;
  ~Socket();
  Socket(const Socket&) = delete;
  Socket& operator=(const Socket&) = delete;

  // Opens a non-blocking UDP socket of the address's family bound to it (port 0: any free
  // port; local() then tells which). False + `error` on failure.
  bool open(const Address& bind_to, std::string& error);
  void close() noexcept;
  bool is_open() const noexcept;
  const Address& local() const noexcept { return local_; }

  // One datagram; false when it could not be queued (would block, unreachable, ...).
  bool send_to(const Address& to, std::span<const std::byte> bytes) noexcept;
  // Next datagram into `out`; returns its size (0: nothing waiting or an error). A datagram
  // larger than `out` is truncated and reported with `truncated`.
  std::uint32_t receive_from(Address& from, std::span<std::byte> out, bool& truncated) noexcept;

 private:
  std::uint64_t handle_ = ~std::uint64_t{0};
  Address local_{};
};

}  // namespace lockstep::rollback::net
