#pragma once
// CommandBuffer: structural changes recorded now (typically inside World::each) and applied
// by World::flush in recording order, as if each command had been called on the world
// directly at flush time. Fixed capacity, reserved at construction; recording never
// allocates. Handles returned by create() are pending until the flush and may be used by
// later commands of the same buffer (as the entity argument, and inside Entity fields of
// recorded component values, which the flush rewrites to the real handle).
#include <lockstep/store/component.h>
#include <lockstep/store/entity.h>
#include <lockstep/status.h>
#include <lockstep/store/type_key.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>

namespace lockstep {

class World;
class ConcurrentStage;
class CommandBuffer;
namespace detail {
// System access check of one recording (system_access.cpp); Ok when allowed.
Status command_access(const World& world, std::uint8_t op, std::uint32_t type_key) noexcept;
}  // namespace detail

class CommandBuffer {
 public:
  enum class Op : std::uint8_t { Create = 0, Destroy = 1, Add = 2, Remove = 3 };

  struct Command {
    Op op;
    // Add: 1 when the next command adds to the same entity in the same structural move
    // (addComponents / createWith): the flush plans no archetype in between.
    std::uint8_t more;
    std::uint8_t reserved[2];
    std::uint32_t type_key;      // Add/Remove: process-local type key of the component
    Entity entity;               // target (may be pending); Create: the pending handle
    std::uint32_t payload;       // Add: byte offset of the value in the payload buffer
    std::uint32_t size;          // Add: value size
    const TypeDescriptor* type;  // Add/Remove: the component's descriptor
  };

  CommandBuffer(std::uint32_t command_capacity, std::uint32_t payload_bytes);
  explicit CommandBuffer(const struct WorldConfig& config);

  // Reserves a pending handle. Returns Entity::null() when the buffer is full.
  Entity create() noexcept;
  Status destroy(Entity e) noexcept;
  template <class T>
  Status addComponent(Entity e, const T& value) noexcept {
    check_state_type<T>();
    if (recordable_inline(e, sizeof(T))) {
      commands_[count_++] = Command{Op::Add, 0, {0, 0}, detail::type_key<T>(), e, payload_used_, sizeof(T), &describe<T>()};
      std::memcpy(payload_.get() + payload_used_, &value, sizeof(T));
      payload_used_ += sizeof(T);
      return Status::Ok();
    }
    return record(Op::Add, e, detail::type_key<T>(), &describe<T>(), &value, sizeof(T));
  }
  // Several components in one structural move at flush (World::addComponents); all or
  // nothing: when the commands or their bytes do not fit, nothing is recorded.
  template <class... Ts>
  Status addComponents(Entity e, const Ts&... values) noexcept {
    static_assert(sizeof...(Ts) >= 1, "addComponents: name at least one component");
    (check_state_type<Ts>(), ...);
    const std::uint32_t keys[] = {detail::type_key<Ts>()...};
    const TypeDescriptor* const types[] = {&describe<Ts>()...};
    const void* const ptrs[] = {static_cast<const void*>(&values)...};
    const std::uint32_t sizes[] = {static_cast<std::uint32_t>(sizeof(Ts))...};
    return record_group(e, keys, types, ptrs, sizes, sizeof...(Ts));
  }
  // A pending entity created with these components in one structural move (World::createWith);
  // Entity::null() and nothing recorded when it does not fit.
  template <class... Ts>
  Entity createWith(const Ts&... values) noexcept {
    (check_state_type<Ts>(), ...);
    const std::uint64_t bytes = (std::uint64_t{0} + ... + sizeof(Ts));
    if (!has_room(1 + sizeof...(Ts), bytes)) return Entity::null();
    const Entity e = create();
    if constexpr (sizeof...(Ts) != 0) (void)addComponents(e, values...);
    return e;
  }

  template <class T>
  Status removeComponent(Entity e) noexcept {
    check_state_type<T>();
    if (recordable_inline(e, 0)) {
      commands_[count_++] = Command{Op::Remove, 0, {0, 0}, detail::type_key<T>(), e, payload_used_, 0, &describe<T>()};
      return Status::Ok();
    }
    return record(Op::Remove, e, detail::type_key<T>(), &describe<T>(), nullptr, 0);
  }

  // Fire-and-forget forms for systems: record like destroy/addComponent/removeComponent,
  // but instead of a Status to check, a command that cannot be recorded (buffer full, bad
  // handle) is counted in dropped() until clear(). replay::Runner fails the tick when
  // dropped() > 0, so nothing is lost silently (docs/kernel.md).
  void post_destroy(Entity e) noexcept { count_drop(destroy(e)); }
  template <class T>
  void post_add(Entity e, const T& value) noexcept {
    count_drop(addComponent(e, value));
  }
  template <class T>
  void post_remove(Entity e) noexcept {
    count_drop(removeComponent<T>(e));
  }
  std::uint32_t dropped() const noexcept { return dropped_; }

  std::uint32_t size() const noexcept { return count_; }
  bool empty() const noexcept { return count_ == 0; }
  std::uint32_t pending_creates() const noexcept { return creates_; }
  void clear() noexcept;

  const Command& command(std::uint32_t i) const noexcept { return commands_[i]; }
  const std::byte* payload(std::uint32_t offset) const noexcept { return payload_.get() + offset; }
  std::uint32_t command_capacity() const noexcept { return command_capacity_; }

 private:
  friend class World;
  friend class ConcurrentStage;
  // Set by World while a system's access is installed on the world owning this buffer.
  const World* access_world_ = nullptr;

  Status record(Op op, Entity e, std::uint32_t key, const TypeDescriptor* type, const void* value,
                std::uint32_t size) noexcept;
  Status record_group(Entity e, const std::uint32_t* keys, const TypeDescriptor* const* types,
                      const void* const* values, const std::uint32_t* sizes, std::uint32_t count) noexcept;
  // The common case of record(), recorded inline by the typed calls (a command per entity per
  // tick is the hot path of systems): no access check installed, a handle record() would
  // accept, room for it. Everything else takes record() and its errors.
  bool recordable_inline(Entity e, std::uint64_t bytes) const noexcept {
    return access_world_ == nullptr && !e.is_null() && (!e.is_pending() || e.slot < creates_) &&
           has_room(1, bytes);
  }
  bool has_room(std::uint64_t commands, std::uint64_t bytes) const noexcept {
    return count_ + commands <= command_capacity_ && bytes <= payload_capacity_ - payload_used_;
  }

  std::unique_ptr<Command[]> commands_;
  std::unique_ptr<std::byte[]> payload_;
  std::uint32_t command_capacity_;
  std::uint32_t payload_capacity_;
  std::uint32_t count_ = 0;
  std::uint32_t payload_used_ = 0;
  std::uint32_t creates_ = 0;
  std::uint32_t dropped_ = 0;

  void count_drop(const Status& s) noexcept {
    if (!s.ok()) ++dropped_;
  }
};

}  // namespace lockstep
