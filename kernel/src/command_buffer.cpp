#include <lockstep/assert.h>
#include <lockstep/store/command_buffer.h>
#include <lockstep/store/world_config.h>

namespace lockstep {

CommandBuffer::CommandBuffer(std::uint32_t command_capacity, std::uint32_t payload_bytes)
    : commands_(new Command[command_capacity]),
      payload_(new std::byte[payload_bytes == 0 ? 1 : payload_bytes]),
      command_capacity_(command_capacity),
      payload_capacity_(payload_bytes) {}

CommandBuffer::CommandBuffer(const WorldConfig& config)
    : CommandBuffer(config.command_capacity, config.command_bytes) {}

void CommandBuffer::clear() noexcept {
  count_ = 0;
  payload_used_ = 0;
  creates_ = 0;
  dropped_ = 0;
}

Entity CommandBuffer::create() noexcept {
  if (access_world_ != nullptr && !detail::command_access(*access_world_, static_cast<std::uint8_t>(Op::Create), 0).ok())
    return Entity::null();
  if (count_ >= command_capacity_) return Entity::null();
  const Entity pending{creates_, Entity::kPendingGeneration};
  commands_[count_++] = Command{Op::Create, 0, {0, 0}, 0, pending, 0, 0, nullptr};
  ++creates_;
  return pending;
}

Status CommandBuffer::destroy(Entity e) noexcept {
  return record(Op::Destroy, e, 0, nullptr, nullptr, 0);
}

Status CommandBuffer::record(Op op, Entity e, std::uint32_t key, const TypeDescriptor* type,
                             const void* value, std::uint32_t size) noexcept {
  if (access_world_ != nullptr) {
    if (Status s = detail::command_access(*access_world_, static_cast<std::uint8_t>(op), key); !s.ok()) return s;
  }
  if (e.is_null()) return {ErrorCode::InvalidArgument, "command buffer: null entity"};
  if (e.is_pending() && e.slot >= creates_)
    return {ErrorCode::InvalidArgument, "command buffer: pending handle from another buffer"};
  if (count_ >= command_capacity_)
    return {ErrorCode::CapacityExceeded, "command buffer: command capacity exhausted"};
  if (size > payload_capacity_ - payload_used_)
    return {ErrorCode::CapacityExceeded, "command buffer: payload bytes exhausted"};
  Command c{op, 0, {0, 0}, key, e, payload_used_, size, type};
  if (size != 0) {
    std::memcpy(payload_.get() + payload_used_, value, size);
    payload_used_ += size;
  }
  commands_[count_++] = c;
  return Status::Ok();
}

Status CommandBuffer::record_group(Entity e, const std::uint32_t* keys, const TypeDescriptor* const* types,
                                   const void* const* values, const std::uint32_t* sizes,
                                   std::uint32_t count) noexcept {
  if (e.is_null()) return {ErrorCode::InvalidArgument, "command buffer: null entity"};
  if (e.is_pending() && e.slot >= creates_)
    return {ErrorCode::InvalidArgument, "command buffer: pending handle from another buffer"};
  std::uint64_t bytes = 0;
  for (std::uint32_t k = 0; k < count; ++k) bytes += sizes[k];
  if (count_ + std::uint64_t{count} > command_capacity_)
    return {ErrorCode::CapacityExceeded, "command buffer: command capacity exhausted"};
  if (bytes > payload_capacity_ - payload_used_)
    return {ErrorCode::CapacityExceeded, "command buffer: payload bytes exhausted"};
  for (std::uint32_t k = 0; k < count; ++k) {
    const Status s = record(Op::Add, e, keys[k], types[k], values[k], sizes[k]);
    LOCKSTEP_ASSERT(s.ok());  // room was checked above
    commands_[count_ - 1].more = k + 1 < count ? 1 : 0;
  }
  return Status::Ok();
}

}  // namespace lockstep
