#pragma once
// Peers exchange the state of a confirmed tick through the transport seam, so a real match
// (peers in separate processes) can put BOTH sides into a desync bundle, as netsim does with
// its in-process peers. Typical use after a Desync event at tick T: the local peer requests T
// from the remote one, whose StateExchange serves its session's kept snapshot of T
// (RollbackSession::checkpoint(T)); the answer is a snapshot file's bytes (docs/hashing.md),
// decoded without a World into an inspect::State (checksummed: a damaged reply is refused).
//
// Wire (all little-endian), on a Transport of its own beside the session's (a second UDP
// port, a second SimNetwork endpoint: the session treats foreign messages as malformed):
//   header   "LSX1" · u8 kind · u8[3] 0 · u64 tick · u32 request id
//   REQUEST  header                       (resent every `resend_polls` polls until answered)
//   CHUNK    header · u32 total bytes · u32 offset · bytes (≤ kMaxMessageBytes − 28)
//   NONE     header                       (the server keeps no state of that tick)
// A server answers each REQUEST with every chunk, so a lost chunk comes back with the next
// resend. Diagnostic path: allocates (never called on the tick path).
#include <lockstep/hash/snapshot_file.h>
#include <lockstep/inspect/state.h>
#include <lockstep/rollback/transport.h>
#include <lockstep/store/snapshot.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace lockstep::rollback {

inline constexpr std::uint32_t kStateExchangeHeaderBytes = 20;
inline constexpr std::uint32_t kStateExchangeChunkBytes = kMaxMessageBytes - kStateExchangeHeaderBytes - 8;
inline constexpr std::uint32_t kStateExchangeMaxBytes = 256u << 20;  // largest state accepted

class StateExchange {
 public:
  enum class Result { Idle, Pending, Received, Unavailable, Failed };
  // Serving side: this peer's state of `tick`, or null when not kept.
  using Provider = std::function<const Snapshot*(std::uint64_t tick)>;

  explicit StateExchange(Transport& transport, std::uint32_t resend_polls = 8);
  void serve(Provider provider) { provider_ = std::move(provider); }

  // Asks `peer` for its state of `tick` (replaces any request in flight).
  void request(std::uint32_t peer, std::uint64_t tick);
  // Receives and answers messages; resends the request while no complete answer arrived.
  void poll();

  Result result() const noexcept { return result_; }
  const inspect::State& state() const noexcept { return state_; }  // when Received
  const std::string& error() const noexcept { return error_; }     // when Failed
  std::uint64_t requests_served() const noexcept { return served_; }

 private:
  void send_request();
  void answer(std::uint32_t peer, std::uint64_t tick, std::uint32_t id);
  void take_chunk(std::uint64_t tick, std::uint32_t id, const std::byte* body, std::uint32_t size);

  Transport& transport_;
  std::uint32_t resend_polls_;
  Provider provider_;
  Result result_ = Result::Idle;
  std::uint32_t peer_ = 0;
  std::uint64_t tick_ = 0;
  std::uint32_t id_ = 0;
  std::uint32_t since_send_ = 0;
  std::uint64_t served_ = 0;
  std::vector<std::byte> bytes_;
  std::vector<bool> have_;  // per chunk
  std::uint32_t missing_ = 0;
  inspect::State state_;
  std::string error_;
};

}  // namespace lockstep::rollback
