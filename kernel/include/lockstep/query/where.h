#pragma once
// Predicates, ordering and paging over cached and dynamic queries (docs/query.md).
//
//   CachedQuery<term::read<Team>, term::read<Health>> q;
//   Predicate p = field(&Team::owner) == 1 && field(&Health::hp) < 10;
//   each_where(q, world, p, [](Entity e, const Team& t, const Health& h) { ... });
//   std::uint64_t n = 0;  count_where(q, world, p, n);
//
//   OrderBuffer buf(world.config());                  // reserved once, sized by WorldConfig
//   SelectResult r;
//   select(q, world, p, OrderBy{field(&Health::hp).ref, Order::Desc}, Page{0, 50}, buf.items(), r);
//   for (std::uint32_t i = 0; i < r.count; ++i) use(buf.items()[i].entity);
//
// Visit order, guard and row terms are those of the query's own each(); the predicate is
// an extra row filter evaluated in blocks of 64 rows just before they are visited (a write
// made by a callback to a later row of the same block is not seen by that block's test).
// Nothing allocates: the predicate is a fixed-size value, ordering uses the caller's buffer.
#include <lockstep/query/cached_query.h>
#include <lockstep/query/dynamic_query.h>
#include <lockstep/query/predicate.h>
#include <lockstep/store/system_access.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <utility>

namespace lockstep {

// A predicate's components resolved in one world (by descriptor name).
struct PredicateBinding {
  static constexpr std::uint32_t kUnbound = 0xFFFFFFFFu;
  std::uint32_t component[kMaxPredicateAtoms];
};
// Returns the predicate's status; atoms on components `world` has not registered are bound
// to kUnbound and are false for every entity.
Status bind(const Predicate& p, const World& world, PredicateBinding& out) noexcept;
// Whether live entity `e` satisfies `p` (false for a dead or stale handle). O(atoms).
bool matches(const Predicate& p, const PredicateBinding& b, const World& world, Entity e) noexcept;

enum class Order : std::uint8_t { Asc = 0, Desc = 1 };

// order_by: a scalar field (FieldRef::scalar). A null field = the query's visit order.
// Total order: (entities lacking the field's component last) then the value, ascending or
// descending, then slot id ascending — identical on every platform.
struct OrderBy {
  FieldRef field;
  Order order = Order::Asc;
};

struct Page {
  std::uint64_t skip = 0;
  std::uint64_t take = ~std::uint64_t{0};
};

struct OrderItem {
  std::uint64_t key = 0;    // order key (normalised so unsigned < is the requested order)
  Entity entity;
  std::uint32_t absent = 0; // 1 when the entity lacks the order field's component
  std::uint32_t pad = 0;
};

struct SelectResult {
  std::uint64_t matched = 0;  // rows that passed the query and the predicate
  std::uint32_t count = 0;    // results written to the buffer's first entries (the page)
};

// A reserved order buffer. Sized by WorldConfig: max_entities entries hold any match set,
// so every select on that world fits; a smaller buffer is enough for take(k) (k + skip).
class OrderBuffer {
 public:
  explicit OrderBuffer(std::uint32_t capacity) : items_(new OrderItem[capacity]), capacity_(capacity) {}
  explicit OrderBuffer(const WorldConfig& config) : OrderBuffer(config.max_entities) {}
  std::span<OrderItem> items() noexcept { return {items_.get(), capacity_}; }
  std::uint32_t capacity() const noexcept { return capacity_; }

 private:
  std::unique_ptr<OrderItem[]> items_;
  std::uint32_t capacity_;
};

namespace detail {

// Rows [begin, begin + n) of archetype `a` (n <= 64): bit i set when row begin + i
// satisfies p (predicate_eval.cpp).
std::uint64_t predicate_block(const Predicate& p, const PredicateBinding& b, const Archetype& a, std::uint32_t begin,
                              std::uint32_t n) noexcept;

// The order key of a row's value (see OrderBy).
inline std::uint64_t order_key(const FieldRef& f, const std::byte* component, Order order, bool canonical) noexcept {
  std::uint64_t k = field_value(f, component, canonical);
  if (f.is_signed()) k ^= std::uint64_t{1} << 63;
  return order == Order::Desc ? ~k : k;
}
inline bool order_less(const OrderItem& x, const OrderItem& y) noexcept {
  if (x.absent != y.absent) return x.absent < y.absent;
  if (x.key != y.key) return x.key < y.key;
  return x.entity.slot < y.entity.slot;
}

// Keeps the best `k` items (k <= buffer size) of a stream, or all of them while they fit.
class Selector {
 public:
  Selector(std::span<OrderItem> buffer, std::uint64_t skip, std::uint64_t take, bool ordered) noexcept
      : buf_(buffer), skip_(skip), take_(take), ordered_(ordered) {
    const std::uint64_t want = skip > ~std::uint64_t{0} - take ? ~std::uint64_t{0} : skip + take;
    heap_ = ordered && want <= buffer.size();
    k_ = heap_ ? static_cast<std::uint32_t>(want) : static_cast<std::uint32_t>(buffer.size());
  }
  void push(const OrderItem& item) noexcept {
    const std::uint64_t index = matched_++;
    if (!ordered_) {  // visit order: stream the page
      if (index < skip_ || index - skip_ >= take_) return;
      if (n_ == buf_.size()) {
        overflow_ = true;
        return;
      }
      buf_[n_++] = item;
      return;
    }
    if (heap_) {  // partial selection: a max-heap of the k best
      if (k_ == 0) return;
      if (n_ < k_) {
        buf_[n_++] = item;
        std::push_heap(buf_.begin(), buf_.begin() + n_, order_less);
      } else if (order_less(item, buf_[0])) {
        std::pop_heap(buf_.begin(), buf_.begin() + n_, order_less);
        buf_[n_ - 1] = item;
        std::push_heap(buf_.begin(), buf_.begin() + n_, order_less);
      }
      return;
    }
    if (n_ == buf_.size()) {
      overflow_ = true;
      return;
    }
    buf_[n_++] = item;
  }
  Status finish(SelectResult& out) noexcept {
    out.matched = matched_;
    out.count = 0;
    if (overflow_)
      return {ErrorCode::CapacityExceeded,
              "select: the result needs more entries than the order buffer holds (see SelectResult::matched; "
              "size it by WorldConfig::max_entities, or page with take)"};
    if (!ordered_) {
      out.count = n_;
      return Status::Ok();
    }
    if (heap_) std::sort_heap(buf_.begin(), buf_.begin() + n_, order_less);
    else std::sort(buf_.begin(), buf_.begin() + n_, order_less);
    const std::uint64_t from = std::min<std::uint64_t>(skip_, n_);
    const std::uint64_t to = std::min<std::uint64_t>(n_, from + std::min<std::uint64_t>(take_, n_ - from));
    std::copy(buf_.begin() + from, buf_.begin() + to, buf_.begin());
    out.count = static_cast<std::uint32_t>(to - from);
    return Status::Ok();
  }

 private:
  std::span<OrderItem> buf_;
  std::uint64_t skip_, take_;
  bool ordered_;
  bool heap_ = false;
  bool overflow_ = false;
  std::uint32_t k_ = 0;
  std::uint32_t n_ = 0;
  std::uint64_t matched_ = 0;
};

struct WhereAccess {
  template <class Q>
  static const QuerySpec& spec(const Q& q) noexcept { return q.spec_; }
  template <class Q>
  static const MatchCache& cache(const Q& q) noexcept { return q.cache_; }
  template <class Q>
  static std::uint64_t since(const Q& q) noexcept { return q.since_; }
  static bool built(const DynamicQuery& q) noexcept { return q.built_; }
  static std::uint32_t size(const DynamicQuery& q, std::uint32_t k) noexcept { return q.sizes_[k]; }
  static const TypeDescriptor* descriptor(const DynamicQuery& q, std::uint32_t k) noexcept { return q.descriptors_[k]; }
  static DynamicRow& init_row(DynamicRow& row, const DynamicQuery& q) noexcept {
    const std::uint32_t n = q.spec_.fetch_count;
    row.count_ = n;
    for (std::uint32_t k = 0; k < n; ++k) {
      row.writable_[k] = q.spec_.fetch[k].access == Access::Write;
      row.ids_[k] = q.spec_.fetch[k].id;
      row.descriptors_[k] = q.descriptors_[k];
    }
    return row;
  }
  static void set_row(DynamicRow& row, Entity e, std::uint32_t k, std::byte* p) noexcept {
    row.entity_ = e;
    row.ptr_[k] = p;
  }
  static void set_entity(DynamicRow& row, Entity e) noexcept { row.entity_ = e; }
};

// Walks the rows of `matched` that pass the query's row filter and `p`, in visit order.
// row_fn(const Archetype&, row, slot, const std::uint8_t* columns) gets the per-fetch column
// of the row (kNoColumn for a missing or disabled optional). `stamp`: Write fetches of
// tracked components stamp the change tick, as the query's each() does.
template <class RowFn>
void where_rows(const World& w, const QuerySpec& spec, const IdSet256& matched, std::uint64_t since, const Predicate& p,
                const PredicateBinding& b, bool stamp, RowFn&& row_fn) {
  const Archetype* archetypes = QueryAccess::archetypes(w);
  const bool checked = needs_row_checks(w, spec);
  const RowFilter filter = row_filter(w, spec, since);
  const bool always = p.isAlways();
  const std::uint32_t n = spec.fetch_count;
  for_each_id(matched, [&](std::uint32_t id) {
    const Archetype& a = archetypes[id];
    std::uint8_t columns[kMaxQueryFetch + 1];
    for (std::uint32_t k = 0; k < n; ++k) columns[k] = spec.fetch[k].missing ? kNoColumn : a.column_of[spec.fetch[k].id];
    const std::uint32_t rows = a.rows;
    for (std::uint32_t begin = 0; begin < rows; begin += 64) {
      const std::uint32_t len = rows - begin < 64 ? rows - begin : 64;
      std::uint64_t mask = always ? (len == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << len) - 1)
                                  : predicate_block(p, b, a, begin, len);
      while (mask != 0) {
        const std::uint32_t r = begin + static_cast<std::uint32_t>(std::countr_zero(mask));
        mask &= mask - 1;
        const std::uint32_t slot = a.slots_ptr[r];
        if (!checked) {
          row_fn(a, r, slot, static_cast<const std::uint8_t*>(columns));
          continue;
        }
        std::uint64_t word;
        if (!filter.pass(slot, word)) continue;
        std::uint8_t row_columns[kMaxQueryFetch + 1];
        for (std::uint32_t k = 0; k < n; ++k) {
          row_columns[k] = (word & filter.opt_null[k]) != 0 ? kNoColumn : columns[k];
          if (stamp && row_columns[k] != kNoColumn && filter.mark_track[k] != ~0u)
            filter.changed.stamp(slot, filter.mark_track[k], filter.now);
        }
        row_fn(a, r, slot, static_cast<const std::uint8_t*>(row_columns));
      }
    }
  });
}

template <class F>
typename fetch_traits<F>::arg where_hand(const Archetype& a, std::uint8_t column, std::uint32_t r) noexcept {
  using T = typename fetch_traits<F>::type;
  if constexpr (fetch_traits<F>::optional) {
    return column == kNoColumn ? nullptr : reinterpret_cast<T*>(a.column_ptr[column]) + r;
  } else {
    return *(reinterpret_cast<T*>(a.column_ptr[column]) + r);
  }
}

// System access (system_access.h): the predicate's components (and the order field's) are
// read, so a running system must declare them Read or Write. Ok when no access is installed.
Status check_predicate_access(const World& w, const Predicate& p, const PredicateBinding& b,
                              const FieldRef* order_field) noexcept;

template <class Q>
Status prepare_read(Q& q, const World& w, const Predicate& p, PredicateBinding& b,
                    const FieldRef* order_field = nullptr) noexcept {
  if (!p.status().ok()) return p.status();
  if constexpr (std::is_same_v<Q, DynamicQuery>)
    if (!WhereAccess::built(q)) return {ErrorCode::InvalidArgument, "DynamicQuery: the query was not built"};
  if (Status s = q.refresh(w); !s.ok()) return s;
  if (Status s = bind(p, w, b); !s.ok()) return s;
  // System access (docs/systems.md): the fetches as for each(), and Read of every component
  // the predicate (and the order field) looks at.
  if (w.access() != nullptr) {
    if (Status s = check_query_access(w, WhereAccess::spec(q)); !s.ok()) return s;
    if (Status s = check_predicate_access(w, p, b, order_field); !s.ok()) return s;
  }
  return Status::Ok();
}

// The order/select walk shared by both query kinds (no callbacks, nothing handed out).
template <class Q>
Status select_impl(Q& q, const World& w, const Predicate& p, const OrderBy& o, Page page, std::span<OrderItem> buffer,
                   SelectResult& out) noexcept {
  out = SelectResult{};
  PredicateBinding b;
  const bool ordered = o.field.type != nullptr;
  if (Status s = prepare_read(q, w, p, b, ordered ? &o.field : nullptr); !s.ok()) return s;
  std::uint32_t order_id = PredicateBinding::kUnbound;
  if (ordered) {
    if (!o.field.scalar()) return {ErrorCode::InvalidArgument, "select: order_by needs one scalar element"};
    const std::int32_t id = w.componentIdByName(o.field.type->name);
    if (id >= 0) order_id = static_cast<std::uint32_t>(id);
  }
  const std::uint32_t* generations = QueryAccess::generations(w);
  Selector sel(buffer, page.skip, page.take, ordered);
  where_rows(w, WhereAccess::spec(q), WhereAccess::cache(q).matched, WhereAccess::since(q), p, b, false,
             [&](const Archetype& a, std::uint32_t r, std::uint32_t slot, const std::uint8_t*) {
               OrderItem item;
               item.entity = Entity{slot, generations[slot]};
               if (ordered) {
                 const std::uint8_t c = order_id == PredicateBinding::kUnbound ? kNoColumn : a.column_of[order_id];
                 if (c == kNoColumn) item.absent = 1;
                 else item.key = order_key(o.field, a.column_ptr[c] + std::size_t{r} * a.column_size[c], o.order, false);
               }
               sel.push(item);
             });
  return sel.finish(out);
}

}  // namespace detail

// fn as for q.each (typed arguments), for the rows that also satisfy p.
template <class... Terms, class Fn>
Status each_where(CachedQuery<Terms...>& q, World& world, const Predicate& p, Fn&& fn) {
  using Fetches = detail::fetch_list_t<Terms...>;
  if (detail::QueryAccess::guard(world) != nullptr) return detail::QueryAccess::nested(world);
  PredicateBinding b;
  if (Status s = detail::prepare_read(q, world, p, b); !s.ok()) return s;
  const detail::QuerySpec& spec = detail::WhereAccess::spec(q);
  detail::QueryAccess::mark_writes(world, spec);  // Write terms hand out mutable rows (incremental hash)
  detail::IterationGuard guard;
  guard.matched_archetypes = detail::WhereAccess::cache(q).matched;
  guard.read_components = spec.read_set;
  guard.listed_components = spec.listed_set;
  const detail::IdSet256 matched = guard.matched_archetypes;
  detail::GuardScope scope(detail::QueryAccess::guard(world), guard);
  const std::uint32_t* generations = detail::QueryAccess::generations(world);
  [&]<class... Fs>(detail::TypeList<Fs...>) {
    detail::where_rows(world, spec, matched, detail::WhereAccess::since(q), p, b, true,
                       [&](const detail::Archetype& a, std::uint32_t r, std::uint32_t slot, const std::uint8_t* columns) {
                         [&]<std::size_t... I>(std::index_sequence<I...>) {
                           fn(Entity{slot, generations[slot]}, detail::where_hand<Fs>(a, columns[I], r)...);
                         }(std::index_sequence_for<Fs...>{});
                       });
  }(Fetches{});
  return Status::Ok();
}

// fn(const DynamicRow&) for the rows that also satisfy p.
template <class Fn>
Status each_where(DynamicQuery& q, World& world, const Predicate& p, Fn&& fn) {
  if (detail::QueryAccess::guard(world) != nullptr) return detail::QueryAccess::nested(world);
  PredicateBinding b;
  if (Status s = detail::prepare_read(q, world, p, b); !s.ok()) return s;
  const detail::QuerySpec& spec = detail::WhereAccess::spec(q);
  detail::QueryAccess::mark_writes(world, spec);  // Write terms hand out mutable rows (incremental hash)
  detail::IterationGuard guard;
  guard.matched_archetypes = detail::WhereAccess::cache(q).matched;
  guard.read_components = spec.read_set;
  guard.listed_components = spec.listed_set;
  const detail::IdSet256 matched = guard.matched_archetypes;
  detail::GuardScope scope(detail::QueryAccess::guard(world), guard);
  const std::uint32_t* generations = detail::QueryAccess::generations(world);
  DynamicRow row;
  detail::WhereAccess::init_row(row, q);
  const std::uint32_t n = spec.fetch_count;
  std::uint32_t sizes[kMaxQueryFetch];
  for (std::uint32_t k = 0; k < n; ++k) sizes[k] = detail::WhereAccess::size(q, k);
  detail::where_rows(world, spec, matched, detail::WhereAccess::since(q), p, b, true,
                     [&](const detail::Archetype& a, std::uint32_t r, std::uint32_t slot, const std::uint8_t* columns) {
                       const Entity e{slot, generations[slot]};
                       detail::WhereAccess::set_entity(row, e);
                       for (std::uint32_t k = 0; k < n; ++k)
                         detail::WhereAccess::set_row(row, e, k,
                                                      columns[k] == detail::kNoColumn
                                                          ? nullptr
                                                          : a.column_ptr[columns[k]] + std::size_t{r} * sizes[k]);
                       fn(static_cast<const DynamicRow&>(row));
                     });
  return Status::Ok();
}

// Rows of q (terms, row terms, enable bits as in each) that satisfy p. Hands nothing out and
// stamps no change ticks; works on a const World.
template <class Q>
Status count_where(Q& q, const World& world, const Predicate& p, std::uint64_t& out) noexcept {
  out = 0;
  PredicateBinding b;
  if (Status s = detail::prepare_read(q, world, p, b); !s.ok()) return s;
  const detail::QuerySpec& spec = detail::WhereAccess::spec(q);
  std::uint64_t n = 0;
  if (detail::needs_row_checks(world, spec)) {
    detail::where_rows(world, spec, detail::WhereAccess::cache(q).matched, detail::WhereAccess::since(q), p, b, false,
                       [&](const detail::Archetype&, std::uint32_t, std::uint32_t, const std::uint8_t*) { ++n; });
  } else {
    // No row terms: whole blocks count by popcount.
    const detail::Archetype* archetypes = detail::QueryAccess::archetypes(world);
    const bool always = p.isAlways();
    detail::for_each_id(detail::WhereAccess::cache(q).matched, [&](std::uint32_t id) {
      const detail::Archetype& a = archetypes[id];
      if (always) {
        n += a.rows;
        return;
      }
      for (std::uint32_t begin = 0; begin < a.rows; begin += 64)
        n += static_cast<std::uint64_t>(
            std::popcount(detail::predicate_block(p, b, a, begin, a.rows - begin < 64 ? a.rows - begin : 64)));
    });
  }
  out = n;
  return Status::Ok();
}

// order_by + skip + take over q ∧ p. The page (at most take entries) lands in buffer[0, count)
// as OrderItems (entity + key). Buffer need: min(skip + take, matches) entries with an order
// (take(k) keeps a bounded max-heap of skip + k: partial selection, O(n log k), not a full
// sort), min(take, matches − skip) in visit order. Short buffer → CapacityExceeded with
// out.matched set and out.count = 0. No callbacks, no change ticks; const World.
template <class Q>
Status select(Q& q, const World& world, const Predicate& p, const OrderBy& order, Page page,
              std::span<OrderItem> buffer, SelectResult& out) noexcept {
  return detail::select_impl(q, world, p, order, page, buffer, out);
}

}  // namespace lockstep
