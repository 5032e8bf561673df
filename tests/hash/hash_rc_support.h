#pragma once
// RapidCheck generators for hashtest::Op.
#include "hash/hash_test_support.h"

#include <rapidcheck.h>

namespace rc {
template <>
struct Arbitrary<hashtest::Op> {
  static Gen<hashtest::Op> arbitrary() {
    return gen::apply(
        [](int kind, std::uint32_t index, std::int64_t a, std::int64_t b) {
          hashtest::Op op;
          // Extra weight on create so worlds fill up.
          op.kind = static_cast<std::uint8_t>(kind < hashtest::kOpKinds ? kind : hashtest::kCreate);
          op.index = index;
          op.a = a;
          op.b = b;
          return op;
        },
        gen::inRange<int>(0, hashtest::kOpKinds + 6), gen::arbitrary<std::uint32_t>(),
        gen::arbitrary<std::int64_t>(), gen::arbitrary<std::int64_t>());
  }
};
}  // namespace rc
