#pragma once
// The iteration engine behind World::each, parallelEach and parallelEachChunk (store/world.h
// declares them as one-line forwarders; docs/kernel.md, "Queries"). The prologue is shared and
// out of line (QueryAccess::begin_each); what stays here is what must be a template: the row
// loops that call the game's function with typed references.
#include <lockstep/exec/executor.h>
#include <lockstep/query/access.h>
#include <lockstep/query/tags.h>

#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>

namespace lockstep::detail {

template <class T, class Tag>
using QueryRef = std::conditional_t<std::is_same_v<Tag, Write>, T&, const T&>;

// How one row's component reaches the game's function. A small trivially copyable Read
// component is copied first and passed as a const lvalue (`const T&`, `T` and `const auto&`
// parameters bind as before): its loads then all come before any store through a Write
// reference, so clang may pair the two fields of a fixed-point Vel into one vector add, which
// it may not while both are accesses to `fixed::v_` through references that may alias (each on
// fixed at 10k: docs/benchmarks.md, "Iteration"). Write components and larger ones are passed
// by reference to the column.
template <class T, class Tag,
          bool Copy = std::is_same_v<Tag, Read> && std::is_trivially_copyable_v<T> && sizeof(T) <= 32>
struct RowArg {
  explicit RowArg(T* p) noexcept : p_(p) {}
  QueryRef<T, Tag> get() const noexcept { return *p_; }
  T* p_;
};
template <class T, class Tag>
struct RowArg<T, Tag, true> {
  explicit RowArg(const T* p) noexcept : value_(*p) {}
  const T& get() const noexcept { return value_; }
  const T value_;
};

// fn(entity, each row argument's reference): the RowArgs (parameters here) live until fn
// returns. A std::tuple of them instead cost g++ its vectorized loop (1.67x the raw loop).
template <class Fn, class... Args>
inline void call_row(Fn& fn, Entity e, const Args&... args) {
  fn(e, args.get()...);
}
template <class Fn, class... Args>
inline void call_row_chunk(Fn& fn, std::uint32_t chunk, Entity e, const Args&... args) {
  fn(chunk, e, args.get()...);
}

// RAII: installs the iteration guard and removes it on every exit path.
class GuardScope {
 public:
  GuardScope(IterationGuard*& slot, IterationGuard& guard) noexcept : slot_(slot) { slot_ = &guard; }
  ~GuardScope() { slot_ = nullptr; }
  GuardScope(const GuardScope&) = delete;
  GuardScope& operator=(const GuardScope&) = delete;

 private:
  IterationGuard*& slot_;
};

template <class... Ts>
struct QueryEngine {
  static constexpr std::size_t N = sizeof...(Ts);

  template <class... Tags>
  static void check_tags(const char* /*form*/) {
    static_assert(sizeof...(Ts) == sizeof...(Tags),
                  "World::each / parallelEach: pass exactly one lockstep::Read{} or lockstep::Write{} per listed component");
    static_assert(((std::is_same_v<Tags, Read> || std::is_same_v<Tags, Write>) && ...),
                  "World::each / parallelEach: access tags must be lockstep::Read or lockstep::Write");
  }

  // Rows [0, a.rows) of `a`, every one visited. Column addresses are re-read every row: a
  // legal structural change made by fn in another archetype may have compacted the arena
  // (see Archetype::column_ptr).
  template <class... Tags, class Fn>
  static void rows(const Archetype& a, const std::uint32_t* generations, const std::uint32_t* ids, Fn& fn) {
    const std::uint32_t count = a.rows;
    std::uint32_t columns[N];
    for (std::size_t k = 0; k < N; ++k) columns[k] = a.column_of[ids[k]];
    for (std::uint32_t r = 0; r < count; ++r) {
      const std::uint32_t slot = a.slots_ptr[r];
      [&]<std::size_t... I>(std::index_sequence<I...>) {
        call_row(fn, Entity{slot, generations[slot]}, RowArg<Ts, Tags>(reinterpret_cast<Ts*>(a.column_ptr[columns[I]]) + r)...);
      }(std::index_sequence_for<Ts...>{});
    }
  }

  // The same with enable bits skipped and Write-listed tracked components stamped. Everything
  // the row loop needs is in locals: a write through a component reference (an int64 may
  // alias a uint64 member) would otherwise force reloads of the world's fields.
  template <class... Tags, class Fn>
  static void rows_checked(World& w, const Archetype& a, const std::uint32_t* ids, const EachPlan& plan, Fn& fn) {
    constexpr bool is_read[N] = {std::is_same_v<Tags, Read>...};
    const std::uint32_t* const generations = QueryAccess::generations(w);
    const std::uint64_t* const disabled = plan.skip != 0 ? QueryAccess::disabled(w) : nullptr;
    const ChangeTicks ticks = QueryAccess::change_ticks(w);
    const std::uint64_t now = QueryAccess::tick(w);
    std::uint32_t tracks[N] = {};
    std::uint32_t track_count = 0;
    for (std::size_t k = 0; k < N; ++k)
      if (plan.marks && !is_read[k] && QueryAccess::track_of(w, ids[k]) != World::kUntracked)
        tracks[track_count++] = QueryAccess::track_of(w, ids[k]);
    if (disabled == nullptr) {
      // Every row is visited: stamped first, a word per whole block of 64 slots.
      for (std::uint32_t t = 0; t < track_count; ++t) ticks.stamp_rows(a.slots_ptr, a.rows, tracks[t], now);
      rows<Tags...>(a, generations, ids, fn);
      return;
    }
    const std::uint32_t count = a.rows;
    const std::uint64_t skip = plan.skip;
    std::uint32_t columns[N];
    for (std::size_t k = 0; k < N; ++k) columns[k] = a.column_of[ids[k]];
    for (std::uint32_t r = 0; r < count; ++r) {
      const std::uint32_t slot = a.slots_ptr[r];
      if ((disabled[slot] & skip) != 0) continue;
      for (std::uint32_t t = 0; t < track_count; ++t) ticks.stamp(slot, tracks[t], now);
      [&]<std::size_t... I>(std::index_sequence<I...>) {
        call_row(fn, Entity{slot, generations[slot]}, RowArg<Ts, Tags>(reinterpret_cast<Ts*>(a.column_ptr[columns[I]]) + r)...);
      }(std::index_sequence_for<Ts...>{});
    }
  }

  template <class Fn, class... Tags>
  static Status each(World& w, Fn& fn, Tags...) {
    check_tags<Tags...>("each");
    if (QueryAccess::guard(w) != nullptr) return QueryAccess::nested(w);
    IterationGuard guard;
    if constexpr (N == 0) {
      // each<>(fn): every live entity in ascending slot order.
      GuardScope scope(QueryAccess::guard(w), guard);
      const std::uint8_t* const alive = QueryAccess::alive(w);
      const std::uint32_t* const generations = QueryAccess::generations(w);
      const std::uint32_t end = QueryAccess::slot_count(w);
      for (std::uint32_t slot = 0; slot < end; ++slot)
        if (alive[slot] != 0) fn(Entity{slot, generations[slot]});
      return Status::Ok();
    } else {
      const std::uint32_t keys[N] = {type_key<Ts>()...};
      constexpr bool is_read[N] = {std::is_same_v<Tags, Read>...};
      std::uint32_t ids[N];
      EachPlan plan;
      if (Status s = QueryAccess::begin_each(w, keys, is_read, N, ids, guard, plan); !s.ok() || plan.none) return s;
      GuardScope scope(QueryAccess::guard(w), guard);
      const Archetype* const archetypes = QueryAccess::archetypes(w);
      const std::uint32_t* const generations = QueryAccess::generations(w);
      for (std::uint32_t m = 0; m < plan.matched_count; ++m) {
        if (plan.skip == 0 && !plan.marks)
          rows<Tags...>(archetypes[plan.matched[m]], generations, ids, fn);
        else
          rows_checked<Tags...>(w, archetypes[plan.matched[m]], ids, plan, fn);
      }
      return Status::Ok();
    }
  }

  template <class Fn, class... Tags>
  static Status each_const(const World& w, Fn& fn, Tags... tags) {
    static_assert((std::is_same_v<Tags, Read> && ...), "World::each on a const World: every tag must be Read");
    return each(const_cast<World&>(w), fn, tags...);
  }

  // parallelEach (kIndexed = false) and parallelEachChunk (true): each()'s rows, references,
  // enable-bit skips and change ticks, cut into World::kParallelChunkRows-row chunks per
  // archetype in visit order and run on the executor.
  template <bool kIndexed, class Fn, class... Tags>
  static Status parallel(World& w, Fn& fn, Tags...) {
    static_assert(N > 0, "World::parallelEach: list at least one component (each<> has no parallel form)");
    check_tags<Tags...>("parallelEach");
    if (QueryAccess::guard(w) != nullptr) return QueryAccess::nested(w);
    IterationGuard guard;
    const std::uint32_t keys[N] = {type_key<Ts>()...};
    constexpr bool is_read[N] = {std::is_same_v<Tags, Read>...};
    std::uint32_t ids[N];
    EachPlan plan;
    if (Status s = QueryAccess::begin_each(w, keys, is_read, N, ids, guard, plan); !s.ok() || plan.none) return s;
    std::uint32_t first_chunk[WorldConfig::kMaxArchetypesLimit + 1];
    const std::uint32_t chunks = QueryAccess::plan_chunks(w, ids, is_read, N, plan, first_chunk);
    // Columns do not move during the loop: fn makes no world calls, so nothing can grow or
    // compact the arena.
    const Archetype* const archetypes = QueryAccess::archetypes(w);
    const std::uint32_t* const generations = QueryAccess::generations(w);
    const std::uint64_t* const disabled = plan.skip != 0 ? QueryAccess::disabled(w) : nullptr;
    const std::uint64_t skip = plan.skip;
    auto run_chunk = [&](std::uint32_t chunk) noexcept {
      std::uint32_t m = 0;
      while (first_chunk[m + 1] <= chunk) ++m;  // matched archetypes are few; chunks are not
      const Archetype& a = archetypes[plan.matched[m]];
      const std::uint32_t begin = (chunk - first_chunk[m]) * World::kParallelChunkRows;
      const std::uint32_t end = begin + World::kParallelChunkRows < a.rows ? begin + World::kParallelChunkRows : a.rows;
      std::byte* columns[N];
      for (std::size_t k = 0; k < N; ++k) columns[k] = a.column_ptr[a.column_of[ids[k]]];
      const std::uint32_t* const slots = a.slots_ptr;
      for (std::uint32_t r = begin; r < end; ++r) {
        const std::uint32_t slot = slots[r];
        if (disabled != nullptr && (disabled[slot] & skip) != 0) continue;
        [&]<std::size_t... I>(std::index_sequence<I...>) {
          if constexpr (kIndexed)
            call_row_chunk(fn, chunk, Entity{slot, generations[slot]}, RowArg<Ts, Tags>(reinterpret_cast<Ts*>(columns[I]) + r)...);
          else
            call_row(fn, Entity{slot, generations[slot]}, RowArg<Ts, Tags>(reinterpret_cast<Ts*>(columns[I]) + r)...);
        }(std::index_sequence_for<Ts...>{});
      }
    };
    GuardScope scope(QueryAccess::guard(w), guard);
    if (Executor* const executor = QueryAccess::loop_executor(w); executor != nullptr)
      executor->for_each(chunks, run_chunk);
    else
      for (std::uint32_t c = 0; c < chunks; ++c) run_chunk(c);
    return Status::Ok();
  }

  static std::uint32_t chunk_count(const World& w) noexcept {
    static_assert(N > 0, "World::parallelChunkCount: list at least one component");
    const std::uint32_t keys[N] = {type_key<Ts>()...};
    return QueryAccess::chunk_count(w, keys, N);
  }
};

}  // namespace lockstep::detail
