// RollbackSession: confirmed-state hash reports, their exchange and comparison (desync
// detection), and the sync test's comparison (docs/rollback.md; session_impl.h).
#include "session_impl.h"

namespace lockstep::rollback {

void RollbackSession::Impl::make_report(std::uint64_t t) noexcept {
  const std::uint32_t m = static_cast<std::uint32_t>((t / interval) % kept);
  report[m] = hash_ring[t % hash_slots];
  report_tick[m] = t;
  report_sends[m] = cfg.report_repeats;
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
  const bool have_state = ckpt_tick[m] == theirs.tick;
  record_desync(peer, theirs.tick, report[m], theirs, d, have_state ? &ckpt[m] : nullptr);
  // The checkpoint slot may now hold an evicted desync's snapshot: it no longer holds tick.
  if (have_state) ckpt_tick[m] = kNoTick;
}

void RollbackSession::Impl::record_desync(std::uint32_t peer, std::uint64_t tick, const StateHash& mine,
                                         const StateHash& theirs, const HashDiff& d, Snapshot* state) noexcept {
  ++stats.desyncs;
  SessionEvent e;
  e.kind = SessionEventKind::Desync;
  e.peer = peer;
  e.tick = tick;
  e.local_total = mine.total;
  e.remote_total = theirs.total;
  e.diff = d;
  push_event(e);
  // Keep the earliest kept_desyncs ticks (one record per tick: the first peer to report it).
  std::size_t at = 0;
  while (at < desyncs.size() && desyncs[at].tick < tick) ++at;
  if (at < desyncs.size() && desyncs[at].tick == tick) return;
  const std::size_t cap = cfg.kept_desyncs;
  if (at == cap) return;  // later than every kept one, and the list is full
  const bool full = desyncs.size() == cap;
  if (!full) desyncs.emplace_back();  // capacity reserved: no allocation
  // Shift [at, end) one place up; the last record falls off when full.
  for (std::size_t i = desyncs.size() - 1; i > at; --i) {
    desyncs[i] = desyncs[i - 1];
    if (i < desync_snaps.size()) {
      std::swap(desync_snaps[i], desync_snaps[i - 1]);
      std::swap(desync_snap_valid[i], desync_snap_valid[i - 1]);
    }
  }
  desyncs[at] = DesyncRecord{tick, peer, mine, theirs};
  if (at < desync_snaps.size()) {
    desync_snap_valid[at] = 0;
    if (state != nullptr) {
      std::swap(*state, desync_snaps[at]);  // both reserved for this world: no allocation
      desync_snap_valid[at] = 1;
    }
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

void RollbackSession::Impl::send_reports(std::uint32_t peer) noexcept {
  // Oldest first: with K = 1 a burst of confirmations makes several reports at once, and the
  // first divergent one must be among those compared.
  std::uint32_t order[kMaxReportSlots];
  std::uint32_t n = 0;
  for (std::uint32_t m = 0; m < kept && n < kMaxReportSlots; ++m)
    if (report_sends[m] > 0 && report_tick[m] != kNoTick) order[n++] = m;
  std::sort(order, order + n, [this](std::uint32_t a, std::uint32_t b) { return report_tick[a] < report_tick[b]; });
  for (std::uint32_t i = 0; i < n; ++i) send_report(peer, order[i]);
}

void RollbackSession::Impl::send_report(std::uint32_t peer, std::uint32_t m) noexcept {
  const StateHash& h = report[m];
  write_header(kMsgHash, peer);
  std::byte* b = msg.data() + kHeaderBytes;
  put_u64(b, report_tick[m]);
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
  if (!seen_reports[from].accept(h.tick / interval + 1)) return;  // a repeat, or older than 256 reports
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
