// Row order of an archetype: O(1) appends and removals, ascending slot order restored lazily
// before anything reads rows in order (docs/kernel.md, "Row order").
//
// Physical layout of one archetype's rows:
//   [0, sorted)      the ordered prefix: ascending slots, except holes (slot kHole) left by
//                    removals; `holes` counts them
//   [sorted, rows)   the tail: rows appended since the last restore, in arrival order, no holes
// settle() turns this into rows [0, rows - holes) in ascending slot order: sort the tail by
// slot, then compact the holes out of the prefix and merge the tail in, moving every live row
// once per column (both at once when there are holes and a tail). Everything that reads rows in order
// (each, queries, storage(), save) settles first; point accesses (get, rows_[slot]) work on
// the physical row directly, so they never need to.
#include "copy_value.h"
#include "row_order_scratch.h"

#include <lockstep/store/world.h>

#include <algorithm>
#include <bit>
#include <cstring>

namespace lockstep {

using detail::Archetype;
using detail::IdSet256;

namespace {

// A hole keeps the slot it held with the top bit set: never a slot (max_entities <= 2^31), and
// its low bits keep the prefix's keys ascending, so an arriving slot can be placed into a hole
// in order by a search (fill_hole).
constexpr std::uint32_t kHoleBit = 0x80000000u;
constexpr std::uint32_t kNoRow = 0xFFFFFFFFu;

bool is_hole(std::uint32_t slot) noexcept { return (slot & kHoleBit) != 0; }
std::uint32_t key_of(std::uint32_t slot) noexcept { return slot & ~kHoleBit; }

// First row p of [0, n) whose key is >= slot (keys strictly ascending, holes included):
// interpolation from the keys at the ends, then a gallop and a binary search around the guess.
// O(1) probes on evenly spread slots, O(log n) at worst.
std::uint32_t search_prefix(const std::uint32_t* slots, std::uint32_t n, std::uint32_t slot) noexcept {
  if (n == 0) return 0;
  const std::uint32_t k0 = key_of(slots[0]);
  const std::uint32_t k1 = key_of(slots[n - 1]);
  if (slot <= k0) return 0;
  if (slot > k1) return n;
  // Invariant below: key(lo - 1) < slot <= key(hi), with 1 <= lo <= hi <= n - 1.
  std::uint32_t lo = 1, hi = n - 1;
  const auto guess = static_cast<std::uint32_t>(std::uint64_t{slot - k0} * (n - 1) / (k1 - k0));
  std::uint32_t g = guess < lo ? lo : (guess > hi ? hi : guess);
  if (key_of(slots[g]) >= slot) {
    // Gallop down: find a row below g whose key is < slot.
    std::uint32_t step = 1;
    hi = g;
    while (g > lo) {
      const std::uint32_t probe = g - lo > step ? g - step : lo - 1;
      if (key_of(slots[probe]) < slot) {
        lo = probe + 1;
        break;
      }
      hi = probe;
      g = probe;
      step *= 2;
    }
  } else {
    std::uint32_t step = 1;
    lo = g + 1;
    while (g < hi) {
      const std::uint32_t probe = hi - g > step ? g + step : hi;
      if (key_of(slots[probe]) >= slot) {
        hi = probe;
        break;
      }
      lo = probe + 1;
      g = probe;
      step *= 2;
    }
  }
  while (lo < hi) {
    const std::uint32_t mid = lo + (hi - lo) / 2;
    if (key_of(slots[mid]) < slot) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

// Moves `count` rows from row `from` to row `to` in every column and the slot column.
void move_rows(const Archetype& a, std::uint32_t to, std::uint32_t from, std::uint32_t count) noexcept {
  if (count == 0 || to == from) return;
  for (std::uint32_t c = 0; c < a.column_count; ++c) {
    const std::size_t s = a.column_size[c];
    std::memmove(a.column_ptr[c] + to * s, a.column_ptr[c] + from * s, count * s);
  }
  std::memmove(a.slots_ptr + to, a.slots_ptr + from, std::size_t{count} * 4u);
}

bool pending(const Archetype& a) noexcept { return a.holes != 0 || a.sorted != a.rows; }

// Places `slot` into a hole of the ordered prefix where it keeps the prefix ascending (the
// hole it left itself when it comes back, or a neighbouring one): its row, or kNoRow.
std::uint32_t fill_hole(Archetype& a, std::uint32_t slot) noexcept {
  std::uint32_t* slots = a.slots_ptr;
  const std::uint32_t p = search_prefix(slots, a.sorted, slot);
  std::uint32_t row = kNoRow;
  if (p < a.sorted && is_hole(slots[p])) row = p;  // key(p) >= slot > key(p - 1)
  else if (p != 0 && is_hole(slots[p - 1])) row = p - 1;  // key(p - 1) < slot < key(p)
  if (row == kNoRow) return kNoRow;
  slots[row] = slot;
  --a.holes;
  return row;
}

}  // namespace

std::uint32_t World::append_row(Archetype& a, std::uint32_t slot) noexcept {
  const auto id = static_cast<std::uint32_t>(&a - archetypes_.get());
  if (a.holes != 0) {
    const std::uint32_t row = fill_hole(a, slot);
    if (row != kNoRow) {
      rows_[slot] = row;
      if (!pending(a)) unsettled_.erase(id);
      return row;
    }
  }
  if (a.sorted != a.rows) {
    // Keep the tail small enough that one of its columns fits the restore scratch.
    const std::uint64_t tail = std::uint64_t{a.rows - a.sorted} + 1;
    if (tail * a.widest > order_scratch_->byte_capacity) settle_archetype(id);
  }
  const std::uint32_t row = a.rows;
  a.slots_ptr[row] = slot;
  ++a.rows;
  rows_[slot] = row;
  // Appending a slot above every ordered row keeps the archetype ordered (fresh creates).
  if (a.sorted == row && (row == 0 || a.slots_ptr[row - 1] < slot)) {
    a.sorted = a.rows;
  } else {
    unsettled_.insert(id);
  }
  return row;
}

void World::remove_row(Archetype& a, std::uint32_t row, bool bound) noexcept {
  const auto id = static_cast<std::uint32_t>(&a - archetypes_.get());
  const std::uint32_t last = a.rows - 1;
  if (row >= a.sorted || row == last) {
    // A tail row (or the very last row): the last row takes its place, O(1).
    if (row != last) {
      for (std::uint32_t c = 0; c < a.column_count; ++c) {
        const std::size_t s = a.column_size[c];
        detail::copy_value(a.column_ptr[c] + row * s, a.column_ptr[c] + last * s, s);
      }
      a.slots_ptr[row] = a.slots_ptr[last];
      rows_[a.slots_ptr[row]] = row;
    }
    a.rows = last;
    if (a.sorted > a.rows) a.sorted = a.rows;
  } else {
    // A row of the ordered prefix: leave a hole (keeping its key), O(1).
    a.slots_ptr[row] |= kHoleBit;
    ++a.holes;
  }
  if (!pending(a)) {
    unsettled_.erase(id);
    return;
  }
  unsettled_.insert(id);
  // Holes are garbage rows: restore once they outnumber the live rows, so physical rows stay
  // within 2x the live ones (plus a constant) and each restore is paid for by as many removals
  // as it moves rows: amortised O(log n) per removal (the tail sort).
  if (bound && a.holes > a.rows - a.holes + 64) settle_archetype(id);
}

// The hole bound of remove_row, for every archetype at once: a flush removes all its leavers
// first and restores each archetype at most once, instead of once per doubling of its holes
// (removing every row of a large archetype would otherwise compact it log n times).
void World::bound_holes() noexcept {
  for (std::uint32_t word = 0; word < 4; ++word) {
    std::uint64_t bits = unsettled_.words[word];
    while (bits != 0) {
      const auto id = word * 64u + static_cast<std::uint32_t>(std::countr_zero(bits));
      bits &= bits - 1;
      const Archetype& a = archetypes_[id];
      if (a.holes > a.rows - a.holes + 64) settle_archetype(id);
    }
  }
}

void World::settle_archetype(std::uint32_t id) const noexcept {
  Archetype& a = archetypes_[id];
  unsettled_.erase(id);
  if (!pending(a)) return;
  RowOrderScratch& s = *order_scratch_;
  std::uint32_t* slots = a.slots_ptr;
  const std::uint32_t tail_begin = a.sorted;
  const std::uint32_t k = a.rows - a.sorted;
  std::uint32_t first_changed = a.rows;

  // 1. The tail's order (slots are distinct, so the order is total).
  bool tail_in_order = true;
  for (std::uint32_t i = 0; i < k; ++i) {
    s.keys[i] = std::uint64_t{slots[tail_begin + i]} << 32 | i;
    if (i != 0 && slots[tail_begin + i - 1] > slots[tail_begin + i]) tail_in_order = false;
  }
  if (!tail_in_order) std::sort(s.keys.get(), s.keys.get() + k);

  // One column's tail rows, copied aside in slot order (the merges write them back last).
  auto stash_tail = [&](const std::byte* col, std::size_t size) noexcept {
    std::byte* buffer = s.bytes.get();
    for (std::uint32_t j = 0; j < k; ++j)
      std::memcpy(buffer + j * size, col + (tail_begin + static_cast<std::uint32_t>(s.keys[j])) * size, size);
    return buffer;
  };
  std::uint32_t prefix = tail_begin;
  if (a.holes != 0 && k != 0) {
    // Holes and tail rows together (entities that moved for good between archetypes): every
    // live prefix row moves once, by (tail rows merged below it) - (holes below it), instead
    // of once to compact the holes and once more to merge the tail in.
    //
    // 2'. Where each tail row goes: before the first prefix row whose key is above its slot
    // (holes keep their keys, so the keys ascend through them).
    std::uint32_t at = 0;
    for (std::uint32_t j = 0; j < k; ++j) {
      const auto slot = static_cast<std::uint32_t>(s.keys[j] >> 32);
      at = static_cast<std::uint32_t>(
          std::lower_bound(slots + at, slots + tail_begin, slot,
                           [](std::uint32_t row_slot, std::uint32_t value) { return key_of(row_slot) < value; }) -
          slots);
      s.positions[j] = at;
    }
    // 3'. The runs of live rows that share a shift, and each tail row's final row (written over
    // its position once the scan has passed it). Rows below the first hole and the first
    // insertion stay.
    std::uint32_t r = 0;
    while (!is_hole(slots[r])) ++r;
    if (s.positions[0] < r) r = s.positions[0];
    first_changed = r;
    std::uint32_t holes_below = 0, merged = 0, run_count = 0;
    while (r < tail_begin) {
      for (; merged < k && s.positions[merged] <= r; ++merged) s.positions[merged] = r - holes_below + merged;
      if (is_hole(slots[r])) {
        ++holes_below;
        ++r;
        continue;
      }
      // Live rows up to the next hole or insertion point share one shift.
      const std::uint32_t limit = merged < k ? s.positions[merged] : tail_begin;
      std::uint32_t end = r + 1;
      while (end < limit && !is_hole(slots[end])) ++end;
      const auto shift = static_cast<std::int32_t>(merged) - static_cast<std::int32_t>(holes_below);
      if (shift != 0) s.runs[run_count++] = RowOrderScratch::Run{r, end - r, shift};
      r = end;
    }
    for (; merged < k; ++merged) s.positions[merged] = tail_begin - holes_below + merged;
    // 4'. Per column: the tail aside in slot order; rows moving down, lowest run first (each
    // lands below every row not yet moved); rows moving up, highest run first; the tail into
    // the rows left for it. The slot column goes last: the runs were read from it.
    auto move_column = [&](std::byte* col, std::size_t size) noexcept {
      std::byte* buffer = stash_tail(col, size);
      auto move_run = [&](const RowOrderScratch::Run& run) noexcept {
        const auto to = static_cast<std::size_t>(static_cast<std::int64_t>(run.begin) + run.shift);
        std::memmove(col + to * size, col + std::size_t{run.begin} * size, std::size_t{run.count} * size);
      };
      for (std::uint32_t q = 0; q < run_count; ++q)
        if (s.runs[q].shift < 0) move_run(s.runs[q]);
      for (std::uint32_t q = run_count; q-- > 0;)
        if (s.runs[q].shift > 0) move_run(s.runs[q]);
      for (std::uint32_t j = 0; j < k; ++j) std::memcpy(col + std::size_t{s.positions[j]} * size, buffer + j * size, size);
    };
    for (std::uint32_t c = 0; c < a.column_count; ++c) move_column(a.column_ptr[c], a.column_size[c]);
    move_column(reinterpret_cast<std::byte*>(slots), 4u);
    prefix = tail_begin - a.holes;
  } else {
    // 2. Compact the holes out of the prefix: each run of live rows moves down once.
    if (a.holes != 0) {
      std::uint32_t r = 0;
      while (r < tail_begin && !is_hole(slots[r])) ++r;
      first_changed = r;
      std::uint32_t w = r;
      while (r < tail_begin) {
        while (r < tail_begin && is_hole(slots[r])) ++r;
        const std::uint32_t run = r;
        while (r < tail_begin && !is_hole(slots[r])) ++r;
        move_rows(a, w, run, r - run);
        w += r - run;
      }
      prefix = w;
    }

    // 3. Merge the sorted tail in: tail element j lands at row positions[j] + j, and the prefix
    // rows above it move up by j + 1, one memmove per run, top run first.
    if (k != 0) {
      std::uint32_t hi = prefix;
      for (std::uint32_t j = k; j-- > 0;) {
        const auto slot = static_cast<std::uint32_t>(s.keys[j] >> 32);
        hi = static_cast<std::uint32_t>(std::lower_bound(slots, slots + hi, slot) - slots);
        s.positions[j] = hi;
      }
      if (s.positions[0] < first_changed) first_changed = s.positions[0];
      const bool in_place = prefix == tail_begin && tail_in_order && s.positions[0] == prefix;
      if (!in_place) {
        auto merge_column = [&](std::byte* col, std::size_t size) noexcept {
          std::byte* buffer = stash_tail(col, size);
          std::uint32_t top = prefix;
          for (std::uint32_t j = k; j-- > 0;) {
            const std::uint32_t lo = s.positions[j];
            if (top > lo) std::memmove(col + (lo + j + 1) * size, col + lo * size, (top - lo) * size);
            std::memcpy(col + (lo + j) * size, buffer + j * size, size);
            top = lo;
          }
        };
        for (std::uint32_t c = 0; c < a.column_count; ++c) merge_column(a.column_ptr[c], a.column_size[c]);
        merge_column(reinterpret_cast<std::byte*>(slots), 4u);
      }
    }
  }

  a.rows = prefix + k;
  a.sorted = a.rows;
  a.holes = 0;
  for (std::uint32_t r = first_changed; r < a.rows; ++r) rows_[slots[r]] = r;
}

void World::settle_set(const IdSet256& which) const noexcept {
  for (std::uint32_t word = 0; word < 4; ++word) {
    std::uint64_t bits = unsettled_.words[word] & which.words[word];
    // Archetypes a live query is visiting stay as they are (they were settled before it began).
    if (call().guard != nullptr) bits &= ~call().guard->matched_archetypes.words[word];
    while (bits != 0) {
      const auto bit = static_cast<std::uint32_t>(std::countr_zero(bits));
      bits &= bits - 1;
      settle_archetype(word * 64u + bit);
    }
  }
}

void World::settle_all() const noexcept {
  if (unsettled_.empty()) return;
  IdSet256 all;
  for (std::uint64_t& w : all.words) w = ~std::uint64_t{0};
  settle_set(all);
}

}  // namespace lockstep
