#pragma once
// Status: the kernel's error model. No exceptions on hot paths; every fallible kernel call
// returns a Status. The numeric values are a stable, additive-only contract.
#include <cstdint>

namespace lockstep {

enum class ErrorCode : std::uint8_t {
  Ok = 0,
  Internal = 1,            // a broken kernel invariant (a bug in lockstep, never in the caller)
  InvalidArgument = 2,     // stale/null/foreign handle, illegal mutation during iteration, ...
  CapacityExceeded = 3,    // a WorldConfig capacity would be exceeded; nothing was changed
  NotRegistered = 4,       // a component or resource type the world does not know
  AlreadyRegistered = 5,   // registering the same type twice
  NotFound = 6,            // the entity exists but lacks the requested component
  Corrupt = 7,             // bytes failed a checksum or structural check
  Mismatch = 8,            // data belongs to a different schema / sim / version
  IoError = 9,             // the operating system refused a read or write
};

const char* to_string(ErrorCode code) noexcept;

// A code plus a static message (never owned, never allocated).
class [[nodiscard]] Status {
 public:
  constexpr Status() noexcept = default;
  constexpr Status(ErrorCode code, const char* message) noexcept : code_(code), message_(message) {}

  static constexpr Status Ok() noexcept { return {}; }

  constexpr bool ok() const noexcept { return code_ == ErrorCode::Ok; }
  constexpr ErrorCode code() const noexcept { return code_; }
  constexpr const char* message() const noexcept { return message_; }

  friend constexpr bool operator==(const Status& a, const Status& b) noexcept { return a.code_ == b.code_; }

 private:
  ErrorCode code_ = ErrorCode::Ok;
  const char* message_ = "ok";
};

}  // namespace lockstep
