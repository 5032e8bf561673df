// Flattening of nested described fields (component.h): `Score { Player players[4]; }` gets
// the leaf fields players[0].kills, players[0].deaths, ... with absolute offsets, so every
// consumer of TypeDescriptor (hashing, snapshots, dumps, diffs, schema hashes) works on
// leaves as before. Runs once per type, at its first describe() (registration time, before
// any tick), and keeps its storage for the life of the program.
#include <lockstep/store/component.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

namespace lockstep::detail {

TypeDescriptor flatten_fields(const char* type_name, std::uint32_t size, std::uint32_t align, const FieldSpec* specs,
                              std::uint32_t count) {
  struct Leaf {
    std::string name;
    FieldDescriptor field;
  };
  std::vector<Leaf> leaves;
  for (std::uint32_t s = 0; s < count; ++s) {
    const FieldSpec& spec = specs[s];
    if (spec.nested == nullptr) {
      leaves.push_back({spec.name, spec.leaf});
      continue;
    }
    // The inner descriptor is itself already flat: one level of expansion suffices.
    const TypeDescriptor& inner = spec.nested();
    for (std::uint32_t i = 0; i < spec.nested_count; ++i) {
      std::string prefix = spec.name;
      if (spec.nested_array) prefix += "[" + std::to_string(i) + "]";
      prefix += ".";
      for (std::uint32_t f = 0; f < inner.field_count; ++f) {
        FieldDescriptor d = inner.fields[f];
        d.offset = spec.offset + i * inner.size + d.offset;
        leaves.push_back({prefix + inner.fields[f].name, d});
      }
    }
  }
  std::size_t chars = 0;
  for (const Leaf& l : leaves) chars += l.name.size() + 1;
  // Owned by the descriptor for the life of the program (a type is described once).
  FieldDescriptor* fields = std::make_unique<FieldDescriptor[]>(leaves.size()).release();
  char* names = std::make_unique<char[]>(chars).release();
  for (std::size_t i = 0; i < leaves.size(); ++i) {
    fields[i] = leaves[i].field;
    fields[i].name = names;
    names = std::copy(leaves[i].name.begin(), leaves[i].name.end(), names);
    *names++ = '\0';
  }
  return TypeDescriptor{type_name, size, align, fields, static_cast<std::uint32_t>(leaves.size())};
}

}  // namespace lockstep::detail
