// The view state of snapshot files (view_state.h; docs/query.md, "Views in snapshot files"):
// the bytes ViewAccess::save writes, in little-endian order. One walker reads that layout in
// either byte order, checks every count and id before it is used, and optionally writes the
// other order; on a little-endian host both orders are the same bytes, so conversion is a
// checked copy. A file's section is untrusted: nothing here indexes memory with a value it
// read without a bound first, and the walker allocates only a bitmap of `slot_limit` bits.
#include "view_registry.h"

#include <lockstep/query/view_state.h>
#include <lockstep/store/world.h>

#include <bit>
#include <cstring>
#include <vector>

namespace lockstep {
namespace detail {
namespace {

constexpr bool kLittleHost = std::endian::native == std::endian::little;

// Sizes (validation) and, when converting on a big-endian host, field layouts of components.
struct ComponentInfo {
  std::span<const std::uint32_t> sizes;    // by component id
  const TypeInfo* types = nullptr;         // by component id; needed only to convert records
};

class Walker {
 public:
  Walker(std::span<const std::byte> in, std::byte* out, bool src_le, ComponentInfo comps, std::uint32_t slot_limit)
      : in_(in), out_(out), src_le_(src_le), comps_(comps), slot_limit_(slot_limit) {}

  bool run();
  const char* error() const noexcept { return error_; }
  std::uint64_t error_at() const noexcept { return error_at_; }

 private:
  bool fail(const char* what, std::uint64_t at) {
    if (error_ == nullptr) {
      error_ = what;
      error_at_ = at;
    }
    return false;
  }
  // Reads an integer in the source order; when converting, writes it in the other order.
  template <class T>
  bool num(T& v, const char* what) {
    if (sizeof(T) > in_.size() - n_) return fail(what, n_);
    const std::byte* p = in_.data() + n_;
    v = 0;
    if (src_le_)
      for (std::size_t i = 0; i < sizeof(T); ++i) v = static_cast<T>(v | (T{std::to_integer<std::uint8_t>(p[i])} << (8 * i)));
    else
      std::memcpy(&v, p, sizeof(T));
    if (out_ != nullptr) {
      std::byte* o = out_ + n_;
      if (src_le_)
        std::memcpy(o, &v, sizeof(T));
      else
        for (std::size_t i = 0; i < sizeof(T); ++i) o[i] = static_cast<std::byte>((v >> (8 * i)) & 0xFFu);
    }
    n_ += sizeof(T);
    return true;
  }
  bool u32_below(std::uint32_t& v, std::uint64_t limit, const char* what) {
    const std::uint64_t at = n_;
    if (!num(v, what)) return false;
    return v < limit || fail(what, at);
  }
  bool entity(const char* what);
  bool records(std::uint32_t high, const std::uint32_t* watched, std::uint32_t count);
  bool view();

  std::span<const std::byte> in_;
  std::byte* out_;
  bool src_le_;
  ComponentInfo comps_;
  std::uint32_t slot_limit_;
  std::size_t n_ = 0;
  const char* error_ = nullptr;
  std::uint64_t error_at_ = 0;
};

bool Walker::entity(const char* what) {
  const std::uint64_t at = n_;
  std::uint32_t slot = 0, gen = 0;
  if (!num(slot, what) || !num(gen, what)) return false;
  if (slot >= slot_limit_ || gen == 0 || gen > Entity::kMaxGeneration) return fail(what, at);
  return true;
}

// One record per slot: for each watched component a state byte (0 absent, 1 present,
// 2 disabled) and its value, whose fields are swapped element by element when converting.
bool Walker::records(std::uint32_t high, const std::uint32_t* watched, std::uint32_t count) {
  for (std::uint32_t s = 0; s < high; ++s)
    for (std::uint32_t k = 0; k < count; ++k) {
      std::uint8_t state = 0;
      const std::uint64_t at = n_;
      if (!num(state, "view record: state byte")) return false;
      if (state > 2) return fail("view record: state byte is not 0, 1 or 2", at);
      const std::uint32_t size = comps_.sizes[watched[k]];
      if (size > in_.size() - n_) return fail("view record: truncated component value", n_);
      if (out_ != nullptr) {
        std::memcpy(out_ + n_, in_.data() + n_, size);
        if (!kLittleHost && comps_.types != nullptr) {
          const TypeDescriptor& d = *comps_.types[watched[k]].descriptor;
          for (std::uint32_t f = 0; f < d.field_count; ++f) {
            const FieldDescriptor& fd = d.fields[f];
            if (fd.element_size < 2) continue;
            for (std::uint32_t e = 0; e < fd.count; ++e) {
              std::byte* el = out_ + n_ + fd.offset + std::size_t{e} * fd.element_size;
              for (std::uint32_t i = 0; i < fd.element_size / 2u; ++i) std::swap(el[i], el[fd.element_size - 1u - i]);
            }
          }
        }
      }
      n_ += size;
    }
  return true;
}

bool Walker::view() {
  std::uint32_t h[8];
  const char* names[8] = {"view: stride",   "view: watched count",  "view: member count", "view: high slot",
                          "view: added count", "view: removed count", "view: modified count", "view: fresh flag"};
  std::uint64_t at[8];
  for (int i = 0; i < 8; ++i) {
    at[i] = n_;
    if (!num(h[i], names[i])) return false;
  }
  std::uint64_t tick = 0, updates = 0;
  if (!num(tick, "view: tick") || !num(updates, "view: update count")) return false;
  if (h[1] > kMaxWatched) return fail("view: more watched components than a view can have", at[1]);
  if (h[3] > slot_limit_) return fail("view: high slot beyond the slot table", at[3]);
  for (int i = 4; i < 7; ++i)
    if (h[i] > slot_limit_) return fail("view: delta list longer than the slot table", at[i]);
  if (h[7] > 1) return fail("view: fresh flag is not 0 or 1", at[7]);
  std::uint32_t watched[kMaxWatched] = {};
  std::uint64_t stride = 0;
  for (std::uint32_t k = 0; k < h[1]; ++k) {
    const std::uint64_t wat = n_;
    if (!u32_below(watched[k], comps_.sizes.size(), "view: watched component id")) return false;
    if (k > 0 && watched[k] <= watched[k - 1]) return fail("view: watched component ids are not ascending", wat);
    stride += 1u + comps_.sizes[watched[k]];
  }
  if (stride != h[0]) return fail("view: stride does not match the watched components", at[0]);
  std::uint32_t members = 0;
  for (std::uint32_t s = 0; s < h[3]; ++s) {
    const std::uint64_t mat = n_;
    std::uint32_t gen = 0;
    if (!num(gen, "view: member generation")) return false;
    if (gen > Entity::kMaxGeneration) return fail("view: member generation out of range", mat);
    members += gen != 0 ? 1u : 0u;
  }
  if (members != h[2]) return fail("view: member count does not match the member table", at[2]);
  if (!records(h[3], watched, h[1])) return false;
  const std::uint64_t listed = std::uint64_t{h[4]} + h[5] + h[6];
  for (std::uint64_t i = 0; i < listed; ++i)
    if (!entity("view: delta list entity")) return false;
  return true;
}

bool Walker::run() {
  std::uint32_t count = 0, rescan = 0, jcount = 0;
  if (!u32_below(count, kMaxViews + 1u, "views: count") || !u32_below(rescan, 2, "views: rescan flag")) return false;
  const std::uint64_t jat = n_;
  if (!num(jcount, "views: journal length")) return false;
  if (jcount > slot_limit_) return fail("views: journal longer than the slot table", jat);
  for (int i = 0; i < 4; ++i) {
    const std::uint64_t wat = n_;
    std::uint64_t word = 0;
    if (!num(word, "views: journal columns")) return false;
    const std::uint64_t valid_ids = comps_.sizes.size();
    const std::uint64_t first = std::uint64_t(i) * 64u;
    const std::uint64_t allowed = valid_ids <= first ? 0 : valid_ids - first >= 64 ? ~std::uint64_t{0}
                                                                                   : (std::uint64_t{1} << (valid_ids - first)) - 1u;
    if ((word & ~allowed) != 0) return fail("views: journal names a component that does not exist", wat);
  }
  // Each slot at most once: the journal's list capacity is one entry per slot.
  std::vector<bool> seen(jcount == 0 ? 0 : slot_limit_, false);
  for (std::uint32_t k = 0; k < jcount; ++k) {
    const std::uint64_t sat = n_;
    std::uint32_t slot = 0;
    if (!u32_below(slot, slot_limit_, "views: journal slot")) return false;
    if (seen[slot]) return fail("views: journal lists a slot twice", sat);
    seen[slot] = true;
  }
  for (std::uint32_t i = 0; i < count; ++i)
    if (!view()) return false;
  if (n_ != in_.size()) return fail("views: unexpected bytes after the last view", n_);
  return true;
}

std::vector<std::uint32_t> sizes_of(const TypeInfo* types, std::uint32_t count) {
  std::vector<std::uint32_t> sizes(count);
  for (std::uint32_t i = 0; i < count; ++i) sizes[i] = types[i].size;
  return sizes;
}

}  // namespace

Status ViewAccess::from_file(const World& w, std::span<const std::byte> bytes, std::byte* out, std::uint64_t& offset) {
  const std::vector<std::uint32_t> sizes = sizes_of(w.components_.get(), w.component_count_);
  Walker walk(bytes, out, true, ComponentInfo{sizes, w.components_.get()}, w.config().max_entities);
  if (walk.run()) return Status::Ok();
  offset = walk.error_at();
  return {ErrorCode::Corrupt, walk.error()};
}

Status ViewAccess::encode(const World& w, std::vector<std::byte>& out) {
  out.clear();
  if (w.views_ == nullptr) return Status::Ok();
  std::vector<std::byte> saved(save_capacity(*w.views_));
  saved.resize(save(*w.views_, saved.data()));
  const std::vector<std::uint32_t> sizes = sizes_of(w.components_.get(), w.component_count_);
  out.resize(saved.size());
  Walker walk(saved, out.data(), false, ComponentInfo{sizes, w.components_.get()}, w.views_->slots);
  if (walk.run()) return Status::Ok();
  out.clear();
  return {ErrorCode::Internal, walk.error()};
}

void ViewAccess::restore(World& w, std::span<const std::byte> host) noexcept { load(w, host.data(), host.size()); }

}  // namespace detail

Status encodeViewState(const World& world, std::vector<std::byte>& out) { return detail::ViewAccess::encode(world, out); }

Status prepareViewState(const World& world, std::span<const std::byte> bytes, std::vector<std::byte>& host,
                        std::uint64_t& offset) {
  host.assign(bytes.size(), std::byte{0});
  offset = 0;
  if (Status s = detail::ViewAccess::from_file(world, bytes, host.data(), offset); !s.ok()) {
    host.clear();
    return s;
  }
  if (Status s = detail::ViewAccess::check_load(world, host.data(), host.size()); !s.ok()) {
    host.clear();
    return s;
  }
  return Status::Ok();
}

void restoreViewState(World& world, std::span<const std::byte> host) noexcept { detail::ViewAccess::restore(world, host); }

std::size_t maxViewStateBytes(const World& world) noexcept { return detail::ViewAccess::save_capacity(world); }

Status checkViewState(std::span<const std::byte> bytes, std::span<const std::uint32_t> component_sizes,
                      std::uint32_t slot_limit, std::uint64_t& offset) {
  detail::Walker walk(bytes, nullptr, true, detail::ComponentInfo{component_sizes, nullptr}, slot_limit);
  if (walk.run()) return Status::Ok();
  offset = walk.error_at();
  return {ErrorCode::Corrupt, walk.error()};
}

}  // namespace lockstep
