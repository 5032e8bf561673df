// UdpTransport (rollback/udp_transport.h).
#include <lockstep/rollback/udp_transport.h>

#include "udp_socket.h"

#include <cstring>

namespace lockstep::rollback {

struct UdpTransport::Impl {
  UdpTransportConfig cfg;
  net::Socket socket;
  std::vector<net::Address> peers;
  std::array<std::byte, kMaxPacketBytes> out{};
  std::array<std::byte, kMaxPacketBytes> in{};
};

UdpTransport::UdpTransport() : impl_(std::make_unique<Impl>()) {}
UdpTransport::~UdpTransport() = default;

bool UdpTransport::open(const UdpTransportConfig& config) {
  Impl& m = *impl_;
  m.cfg = config;
  error_.clear();
  if (config.peers.empty() || config.peers.size() > 255 || config.local_peer >= config.peers.size()) {
    error_ = "udp: need 1..255 peer addresses and local_peer < peers";
    return false;
  }
  net::Address bind_to;
  if (!net::parse_address(config.bind, bind_to, error_)) {
    error_ = "udp: bind address: " + error_;
    return false;
  }
  if (config.loopback_only && !bind_to.is_loopback()) {
    error_ = "udp: refusing to bind outside loopback: " + config.bind;
    return false;
  }
  m.peers.assign(config.peers.size(), net::Address{});
  for (std::uint32_t q = 0; q < config.peers.size(); ++q) {
    if (q == config.local_peer || config.peers[q].empty()) continue;
    if (!set_peer_address(q, config.peers[q])) return false;
  }
  if (!m.socket.open(bind_to, error_)) {
    error_ = "udp: " + error_;
    return false;
  }
  return true;
}

bool UdpTransport::set_peer_address(std::uint32_t peer, const std::string& address) {
  Impl& m = *impl_;
  if (peer >= m.peers.size()) {
    error_ = "udp: peer id out of range";
    return false;
  }
  net::Address a;
  std::string why;
  if (!net::parse_address(address, a, why)) {
    error_ = "udp: address of peer " + std::to_string(peer) + ": " + why;
    return false;
  }
  if (m.cfg.loopback_only && !a.is_loopback()) {
    error_ = "udp: refusing a peer address outside loopback: " + address;
    return false;
  }
  m.peers[peer] = a;
  return true;
}

std::string UdpTransport::local_address() const { return net::format_address(impl_->socket.local()); }

bool UdpTransport::send(std::uint32_t peer, std::span<const std::byte> message) noexcept {
  Impl& m = *impl_;
  if (peer >= m.peers.size() || peer == m.cfg.local_peer || !m.peers[peer].valid() ||
      m.peers[peer].family() != m.socket.local().family()) {
    ++stats_.send_failures;
    return false;
  }
  const std::uint32_t n = encode_packet(m.cfg.local_peer, m.cfg.session_id, message, m.out);
  if (n == 0 || !m.socket.send_to(m.peers[peer], std::span<const std::byte>(m.out.data(), n))) {
    ++stats_.send_failures;
    return false;
  }
  ++stats_.sent;
  return true;
}

std::uint32_t UdpTransport::receive(std::uint32_t& from, std::span<std::byte, kMaxMessageBytes> out) noexcept {
  Impl& m = *impl_;
  // Bounded: a flood of junk cannot keep the caller here forever. Generous, though: a return
  // of 0 ends the session's receive loop for this poll, so a cap below the flood's rate per
  // frame would leave the real peers' datagrams queued behind the junk (each drop costs one
  // recvfrom, about a microsecond: at most ~4 ms of junk per call).
  for (int i = 0; i < 4096; ++i) {
    net::Address source;
    bool truncated = false;
    const std::uint32_t n = m.socket.receive_from(source, m.in, truncated);
    if (n == 0) return 0;
    if (truncated) {
      ++stats_.dropped_malformed;
      continue;
    }
    std::uint32_t q = 0;
    while (q < m.peers.size() && !net::same_endpoint(m.peers[q], source)) ++q;
    if (q == m.peers.size() || q == m.cfg.local_peer) {
      ++stats_.dropped_unknown;
      continue;
    }
    const DecodedPacket d = decode_packet(std::span<const std::byte>(m.in.data(), n), m.cfg.session_id,
                                          static_cast<std::uint32_t>(m.peers.size()));
    if (d.error == PacketError::WrongSession) {
      ++stats_.dropped_session;
      continue;
    }
    if (d.error != PacketError::None) {
      ++stats_.dropped_malformed;
      continue;
    }
    if (d.sender != q) {
      ++stats_.dropped_sender;
      continue;
    }
    std::memcpy(out.data(), d.message.data(), d.message.size());
    from = q;
    ++stats_.received;
    return static_cast<std::uint32_t>(d.message.size());
  }
  return 0;
}

}  // namespace lockstep::rollback
