#pragma once
// Transport: the seam between a RollbackSession and the network (docs/rollback.md).
//
// A transport moves small, self-contained datagrams between the peers of one session. Peers
// are numbered 0..peers-1; mapping those ids to addresses (UDP, a relay, Steam sockets, ...)
// is the transport's job. Delivery is best effort: messages may be lost, duplicated or
// reordered, and the session copes with all three. Neither side allocates per message.
//
// A UDP transport is ~40 lines: send() = sendto(address_of[peer], bytes); receive() =
// recvfrom(MSG_DONTWAIT) + look the source address up in the peer table (drop unknown ones).
#include <cstddef>
#include <cstdint>
#include <span>

namespace lockstep::rollback {

// Largest message a session sends (a safe UDP payload without IP fragmentation).
inline constexpr std::uint32_t kMaxMessageBytes = 1200;

class Transport {
 public:
  virtual ~Transport() = default;
  // Queues one message (1..kMaxMessageBytes bytes) for `peer`. Returns false when it could
  // not be queued (unknown peer, full queue); the session treats that like a lost message.
  virtual bool send(std::uint32_t peer, std::span<const std::byte> message) noexcept = 0;
  // Moves the next received message into `out` and sets `from` to its sender. Returns the
  // message size, or 0 when nothing is waiting.
  virtual std::uint32_t receive(std::uint32_t& from, std::span<std::byte, kMaxMessageBytes> out) noexcept = 0;
};

}  // namespace lockstep::rollback
