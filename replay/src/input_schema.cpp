#define XXH_INLINE_ALL
#include <xxhash.h>

#include <lockstep/replay/sim.h>

#include <cstring>
#include <vector>

namespace lockstep::replay {

namespace {
void put_le(std::vector<unsigned char>& out, std::uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) out.push_back(static_cast<unsigned char>((v >> (8 * i)) & 0xFFu));
}
void put_str(std::vector<unsigned char>& out, const char* s) {
  const std::size_t n = std::strlen(s);
  put_le(out, n, 4);
  out.insert(out.end(), s, s + n);
}
}  // namespace

std::uint64_t input_schema_hash(const TypeDescriptor& input) noexcept {
  std::vector<unsigned char> bytes;
  put_str(bytes, input.name);
  put_le(bytes, input.size, 4);
  put_le(bytes, input.field_count, 4);
  for (std::uint32_t i = 0; i < input.field_count; ++i) {
    const FieldDescriptor& f = input.fields[i];
    put_str(bytes, f.name);
    put_le(bytes, f.offset, 4);
    put_le(bytes, f.element_size, 2);
    put_le(bytes, f.count, 2);
    put_le(bytes, static_cast<std::uint8_t>(f.kind), 1);
  }
  return XXH3_64bits(bytes.data(), bytes.size());
}

}  // namespace lockstep::replay
