#pragma once
// UdpTransport: the rollback Transport over real UDP sockets (docs/rollback.md, "UDP
// transport"). POSIX sockets or Winsock 2, IPv4 or IPv6, non-blocking.
//
// Peers are fixed up front: peer id → "HOST:PORT" / "[HOST]:PORT" (numeric, no DNS). send()
// frames the session message (rollback/packet.h: magic, version, sender, session id,
// XXH3 checksum) and sendto()s it; receive() drains the socket, dropping and counting every
// datagram that is truncated, malformed, of another session, from an address not in the peer
// table or whose claimed sender does not match its address. The session above provides input
// redundancy and acknowledgements (every message repeats all unacknowledged inputs).
// Buffers: one send and one receive buffer of kMaxPacketBytes, allocated by open(); send and
// receive never allocate. The kernel's socket buffers bound what is queued.
#include <lockstep/rollback/packet.h>
#include <lockstep/rollback/transport.h>

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace lockstep::rollback {

struct UdpTransportConfig {
  std::string bind = "127.0.0.1:0";  // local address; port 0 = any free port (see local_address())
  std::uint32_t local_peer = 0;
  std::uint32_t session_id = 0;
  // Address of every peer, indexed by peer id; the local peer's entry is ignored. An empty
  // entry is a peer that only talks to us once set_peer_address() gives its address.
  std::vector<std::string> peers;
  // Refuse addresses outside 127.0.0.0/8 and ::1 (tests and CI stay on loopback).
  bool loopback_only = false;
};

struct UdpTransportStats {
  std::uint64_t sent = 0;             // datagrams handed to the OS
  std::uint64_t send_failures = 0;    // would block / unreachable / unknown peer
  std::uint64_t received = 0;         // datagrams delivered to the session
  std::uint64_t dropped_unknown = 0;  // source address not in the peer table
  std::uint64_t dropped_malformed = 0;  // truncated, short, bad magic/version/checksum
  std::uint64_t dropped_session = 0;  // another session id (stale match, other program)
  std::uint64_t dropped_sender = 0;   // claimed sender id does not match the source address
};

class UdpTransport final : public Transport {
 public:
  UdpTransport();
  ~UdpTransport() override;
  UdpTransport(const UdpTransport&) = delete;
  UdpTransport& operator=(const UdpTransport&) = delete;

  // Parses the addresses and binds the socket; false + error() on failure.
  bool open(const UdpTransportConfig& config);
  const std::string& error() const noexcept { return error_; }
  // The bound address ("127.0.0.1:40123"), useful with port 0.
  std::string local_address() const;
  bool set_peer_address(std::uint32_t peer, const std::string& address);

  bool send(std::uint32_t peer, std::span<const std::byte> message) noexcept override;
  std::uint32_t receive(std::uint32_t& from, std::span<std::byte, kMaxMessageBytes> out) noexcept override;

  const UdpTransportStats& stats() const noexcept { return stats_; }

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  std::string error_;
  UdpTransportStats stats_{};
};

}  // namespace lockstep::rollback
