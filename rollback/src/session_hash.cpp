// RollbackSession: confirmed-state hash reports, their exchange and comparison (desync
// detection), and the sync test's comparison (docs/rollback.md; session_impl.h).
#include "session_impl.h"

namespace lockstep::rollback {

void RollbackSession::Impl::make_report(std::uint64_t t) noexcept {
  const std::uint32_t m = static_cast<std::uint32_t>((t / interval) % kept);
  report[m] = hash_ring[t % hash_slots];
  report_tick[m] = t;
  out_report_tick = t;
  out_report_repeats = cfg.report_repeats;
  for (Pending& pe : pending) {
    if (pe.valid && pe.hash.tick == t) {
      compare(pe.peer, pe.hash, m);
      pe.valid = false;
    }
  }
}

void RollbackSession::Impl::compare(std::uint32_t peer, const StateHash& theirs, std::uint32_t m) noexcept {
  ++stats.hash_checks;
  const HashDiff d = diff_hashes(report[m], theirs);
  if (d.empty()) return;
  const bool first = !desync;
  record_desync(peer, theirs.tick, report[m], theirs, d);
  if (first && ckpt_tick[m] == theirs.tick) {
    std::swap(ckpt[m], desync_snap);  // both reserved: no allocation
    ckpt_tick[m] = kNoTick;
    desync_snap_valid = true;
  }
}

void RollbackSession::Impl::sync_check() noexcept {
  const std::uint64_t n = current();
  const std::uint64_t depth = std::min<std::uint64_t>(n, cfg.sync_test_distance);
  if (depth == 0) return;
  const std::uint64_t from = n - depth;
  for (std::uint64_t i = 0; i < depth; ++i) sync_expected[i] = hash_ring[(from + 1 + i) % hash_slots];
  first_incorrect = from;
  if (!rollback().ok()) return;
  for (std::uint64_t i = 0; i < depth; ++i) {
    const StateHash& again = hash_ring[(from + 1 + i) % hash_slots];
    const HashDiff d = diff_hashes(sync_expected[i], again);
    if (!d.empty()) {
      record_desync(kSyncTestPeer, from + 1 + i, sync_expected[i], again, d);
      break;
    }
  }
}

void RollbackSession::Impl::send_report(std::uint32_t peer) noexcept {
  const std::uint32_t m = static_cast<std::uint32_t>((out_report_tick / interval) % kept);
  if (report_tick[m] != out_report_tick) return;
  const StateHash& h = report[m];
  write_header(kMsgHash, peer);
  std::byte* b = msg.data() + kHeaderBytes;
  put_u64(b, out_report_tick);
  put_u64(b + 8, h.total);
  put_u64(b + 16, h.entities);
  put_u64(b + 24, h.archetypes);
  put_u64(b + 32, h.resources);
  put_u32(b + 40, h.component_count);
  put_u32(b + 44, 0);
  b += kHashHeadBytes;
  for (std::uint32_t c = 0; c < h.component_count; ++c, b += 8) put_u64(b, h.components[c]);
  transmit(peer, static_cast<std::uint32_t>(b - msg.data()));
}

void RollbackSession::Impl::on_hash(std::uint32_t from, const std::byte* b, std::uint32_t size) noexcept {
  if (size < kHashHeadBytes) {
    ++stats.malformed;
    return;
  }
  StateHash h{};
  h.tick = get_u64(b);
  h.total = get_u64(b + 8);
  h.entities = get_u64(b + 16);
  h.archetypes = get_u64(b + 24);
  h.resources = get_u64(b + 32);
  h.component_count = get_u32(b + 40);
  if (h.component_count > kMaxReportComponents || size != kHashHeadBytes + 8 * h.component_count ||
      interval == 0 || h.tick % interval != 0) {
    ++stats.malformed;
    return;
  }
  for (std::uint32_t c = 0; c < h.component_count; ++c) h.components[c] = get_u64(b + kHashHeadBytes + 8 * c);
  std::uint64_t& last = last_remote_report[from];
  if (last != kNoTick && h.tick <= last) return;  // repeat or overtaken
  last = h.tick;
  if (h.tick <= emitted) {
    const std::uint32_t m = static_cast<std::uint32_t>((h.tick / interval) % kept);
    if (report_tick[m] == h.tick) {
      compare(from, h, m);
    } else {
      ++stats.hash_unchecked;
    }
    return;
  }
  Pending* free_entry = nullptr;
  Pending* oldest = nullptr;
  for (Pending& pe : pending) {
    if (!pe.valid) {
      if (free_entry == nullptr) free_entry = &pe;
    } else if (oldest == nullptr || pe.hash.tick < oldest->hash.tick) {
      oldest = &pe;
    }
  }
  if (free_entry == nullptr) {
    free_entry = oldest;
    ++stats.hash_unchecked;
  }
  free_entry->valid = true;
  free_entry->peer = from;
  free_entry->hash = h;
}

}  // namespace lockstep::rollback
