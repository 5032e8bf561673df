#pragma once
// Process-local type keys for typed lookups (World::get<T> and friends) without typeid or
// std::hash. A key is handed out the first time a type is used; keys depend on call order
// inside the process, so they are lookup indices only: never hashed, saved or ordered by.
// Component and resource ids — the ones that appear in state — come from registration order.
#include <cstdint>
#include <type_traits>

namespace lockstep::detail {

inline constexpr std::uint32_t kMaxTypeKeys = 4096;

std::uint32_t next_type_key() noexcept;

template <class T>
std::uint32_t type_key() noexcept {
  static const std::uint32_t key = next_type_key();
  return key;
}

template <class...>
struct TypeList {};

// Whether Ts... name no type twice (World::addComponents, tryCreateWith).
template <class... Ts>
constexpr bool distinct_component_types() {
  if constexpr (sizeof...(Ts) <= 1) {
    return true;
  } else {
    return []<class T, class... Rest>(TypeList<T, Rest...>) {
      return (!std::is_same_v<T, Rest> && ...) && distinct_component_types<Rest...>();
    }(TypeList<Ts...>{});
  }
}

}  // namespace lockstep::detail
