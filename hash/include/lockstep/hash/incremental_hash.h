#pragma once
// IncrementalHasher: the state hash of one world, tick after tick, re-hashing only what may
// have changed since its previous call (docs/hashing.md, "Incremental hashing").
//
// Bit-identical to hash_world(world) by construction: every part is the same byte string
// fed to the same code; a part is reused only when the world's conservative write marks
// (lockstep/detail/write_marks.h) prove nothing could have written it since the last call.
//   * entities, archetypes, tick, total: recomputed every call (a few bytes per entity);
//   * components[c]: recomputed when a Write hand-out of c, getMutable<c>, an add of c, a
//     structural change in an archetype holding c, any non-empty flush, load, clear or a
//     registration happened since the last call;
//   * resource_parts[r]: recomputed when a mutable resource<r>() was handed out (or load...);
//   * resources (one stream over every resource, layout fixed): recomputed when any
//     resource_parts[r] was.
// Rule for callers (checked in Debug builds, where every call is compared with the full
// hash): a mutable pointer or reference obtained before a hash is not written after it;
// fetch it again. Inside a running each() the hasher falls back to the full hash.
#include <lockstep/hash/state_hash.h>

#include <cstdint>

namespace lockstep {

class World;

class IncrementalHasher {
 public:
  // Hash of `world` now. Allocation-free. Uses the fast path (HashPath::Auto).
  const StateHash& hash(const World& world) noexcept;
  // Forgets the cache: the next call hashes everything.
  void reset() noexcept { world_ = 0; }
  const StateHash& last() const noexcept { return last_; }
  // Sub-hashes recomputed by the last call (components + resource parts): tests, benchmarks.
  std::uint32_t last_recomputed() const noexcept { return recomputed_; }

 private:
  StateHash last_{};
  std::uint64_t world_ = 0;  // World::identity() the cache belongs to; 0 = empty
  std::uint64_t seen_ = 0;   // the world's mark clock at the last call
  std::uint32_t recomputed_ = 0;
};

}  // namespace lockstep
