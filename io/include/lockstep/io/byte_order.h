#pragma once
// Byte order helpers: canonical (little-endian, field-by-field) bytes of host values, shared
// by the state hash (hash/) and the snapshot-file codec (snapshot_codec.h). Values are
// described by their TypeDescriptor field lists (component.h), so the same bytes come out on
// every host whatever its byte order.
#include <lockstep/store/field.h>

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

namespace lockstep::io {

inline constexpr bool kLittleHost = std::endian::native == std::endian::little;

// ---- Little-endian integers -------------------------------------------------------------
// The one copy of the load/store of a little-endian integer: every file and wire field is
// read and written with these, whatever the host's byte order.
inline void put_u16(std::byte* dst, std::uint16_t v) noexcept {
  for (int i = 0; i < 2; ++i) dst[i] = static_cast<std::byte>((v >> (8 * i)) & 0xFFu);
}
inline void put_u32(std::byte* dst, std::uint32_t v) noexcept {
  for (int i = 0; i < 4; ++i) dst[i] = static_cast<std::byte>((v >> (8 * i)) & 0xFFu);
}
inline void put_u64(std::byte* dst, std::uint64_t v) noexcept {
  for (int i = 0; i < 8; ++i) dst[i] = static_cast<std::byte>((v >> (8 * i)) & 0xFFu);
}
// The `n` (0..8) bytes at src, least significant first, as an unsigned value.
inline std::uint64_t get_le(const std::byte* src, std::size_t n) noexcept {
  std::uint64_t v = 0;
  for (std::size_t i = 0; i < n; ++i) v |= std::to_integer<std::uint64_t>(src[i]) << (8 * i);
  return v;
}
inline std::uint16_t get_u16(const std::byte* src) noexcept { return static_cast<std::uint16_t>(get_le(src, 2)); }
inline std::uint32_t get_u32(const std::byte* src) noexcept { return static_cast<std::uint32_t>(get_le(src, 4)); }
inline std::uint64_t get_u64(const std::byte* src) noexcept { return get_le(src, 8); }
// Appending to a byte vector (encoders that grow their output).
inline void append_u16(std::vector<std::byte>& out, std::uint16_t v) {
  std::byte b[2];
  put_u16(b, v);
  out.insert(out.end(), b, b + 2);
}
inline void append_u32(std::vector<std::byte>& out, std::uint32_t v) {
  std::byte b[4];
  put_u32(b, v);
  out.insert(out.end(), b, b + 4);
}
inline void append_u64(std::vector<std::byte>& out, std::uint64_t v) {
  std::byte b[8];
  put_u64(b, v);
  out.insert(out.end(), b, b + 8);
}

// True when the type's fields cover [0, size) exactly, in order, so that on a little-endian
// host the memory bytes of a value are its canonical bytes.
inline bool fields_tile(const TypeDescriptor& d) noexcept {
  std::uint64_t at = 0;
  for (std::uint32_t i = 0; i < d.field_count; ++i) {
    if (d.fields[i].offset != at) return false;
    at += d.fields[i].size();
  }
  return at == d.size;
}

// True when the memory image of `d` values can be used as canonical bytes as-is.
inline bool host_bytes_are_canonical(const TypeDescriptor& d) noexcept { return kLittleHost && fields_tile(d); }

// Canonical bytes of one host-order element of `es` bytes. Elements of size 1, 2, 4 or 8
// are integers written least significant byte first; any other size is a byte string.
// (Decoding is the same operation: LE -> host is also a swap on big-endian hosts.)
inline void element_to_le(std::byte* dst, const std::byte* src, std::uint32_t es) noexcept {
  switch (es) {
    case 1:
      dst[0] = src[0];
      return;
    case 2: {
      std::uint16_t v;
      std::memcpy(&v, src, 2);
      put_u16(dst, v);
      return;
    }
    case 4: {
      std::uint32_t v;
      std::memcpy(&v, src, 4);
      put_u32(dst, v);
      return;
    }
    case 8: {
      std::uint64_t v;
      std::memcpy(&v, src, 8);
      put_u64(dst, v);
      return;
    }
    default:
      std::memcpy(dst, src, es);
      return;
  }
}

// Inverse of element_to_le: little-endian bytes at src -> host-order element at dst.
inline void element_from_le(std::byte* dst, const std::byte* src, std::uint32_t es) noexcept {
  switch (es) {
    case 2: {
      const std::uint16_t v = get_u16(src);
      std::memcpy(dst, &v, 2);
      return;
    }
    case 4: {
      const std::uint32_t v = get_u32(src);
      std::memcpy(dst, &v, 4);
      return;
    }
    case 8: {
      const std::uint64_t v = get_u64(src);
      std::memcpy(dst, &v, 8);
      return;
    }
    default:
      std::memcpy(dst, src, es);
      return;
  }
}

inline constexpr std::size_t kChunk = 4096;

// Canonical bytes of `count` host-order elements of `es` bytes each (one field).
inline void field_to_le(std::byte* dst, const std::byte* src, std::uint32_t es, std::uint32_t count) noexcept {
  switch (es) {
    case 2:
      for (std::uint32_t k = 0; k < count; ++k) element_to_le(dst + 2 * k, src + 2 * k, 2);
      return;
    case 4:
      for (std::uint32_t k = 0; k < count; ++k) element_to_le(dst + 4 * k, src + 4 * k, 4);
      return;
    case 8:
      for (std::uint32_t k = 0; k < count; ++k) element_to_le(dst + 8 * k, src + 8 * k, 8);
      return;
    default:  // single bytes, or byte strings of odd element size
      std::memcpy(dst, src, std::size_t{es} * count);
      return;
  }
}

// Canonical bytes of `rows` consecutive host-order values of type `d`, fed to
// sink(const std::byte*, std::size_t) in chunks of at most kChunk bytes. Only field bytes
// are emitted (field order, then element order, each element little-endian).
template <class Sink>
void encode_rows_canonical(const TypeDescriptor& d, const std::byte* data, std::uint64_t rows, Sink&& sink) {
  alignas(16) std::byte buf[kChunk];
  std::size_t n = 0;
  for (std::uint64_t r = 0; r < rows; ++r) {
    const std::byte* row = data + r * d.size;
    for (std::uint32_t f = 0; f < d.field_count; ++f) {
      const FieldDescriptor& fd = d.fields[f];
      const std::uint32_t size = fd.size();
      if (n + size > kChunk) {
        if (n != 0) sink(static_cast<const std::byte*>(buf), n);
        n = 0;
      }
      if (size <= kChunk) {
        field_to_le(buf + n, row + fd.offset, fd.element_size, fd.count);
        n += size;
        continue;
      }
      // A field larger than the buffer: element by element.
      const std::uint32_t es = fd.element_size;
      const bool integral = es == 1 || es == 2 || es == 4 || es == 8;
      const std::uint32_t unit = integral ? es : 1;
      const std::uint32_t units = integral ? fd.count : size;
      for (std::uint32_t k = 0; k < units; ++k) {
        if (n + unit > kChunk) {
          sink(static_cast<const std::byte*>(buf), n);
          n = 0;
        }
        element_to_le(buf + n, row + fd.offset + std::size_t{k} * unit, unit);
        n += unit;
      }
    }
  }
  if (n != 0) sink(static_cast<const std::byte*>(buf), n);
}

// Canonical bytes of a host-order uint32 array (little-endian elements), chunked.
template <class Sink>
void encode_u32s(const std::uint32_t* data, std::size_t count, bool fast, Sink&& sink) {
  if (count == 0) return;
  if (fast && kLittleHost) {
    sink(reinterpret_cast<const std::byte*>(data), count * 4);
    return;
  }
  std::byte buf[kChunk];
  std::size_t n = 0;
  for (std::size_t i = 0; i < count; ++i) {
    if (n + 4 > kChunk) {
      sink(static_cast<const std::byte*>(buf), n);
      n = 0;
    }
    put_u32(buf + n, data[i]);
    n += 4;
  }
  if (n != 0) sink(static_cast<const std::byte*>(buf), n);
}

// In-place conversion of `rows` values of type `d` from canonical (LE) to host order.
inline void rows_from_le_inplace(const TypeDescriptor& d, std::byte* data, std::uint64_t rows) noexcept {
  if (kLittleHost) return;
  for (std::uint64_t r = 0; r < rows; ++r) {
    std::byte* row = data + r * d.size;
    for (std::uint32_t f = 0; f < d.field_count; ++f) {
      const FieldDescriptor& fd = d.fields[f];
      const std::uint32_t es = fd.element_size;
      if (es != 2 && es != 4 && es != 8) continue;
      for (std::uint32_t k = 0; k < fd.count; ++k) {
        std::byte tmp[8];
        element_from_le(tmp, row + fd.offset + std::size_t{k} * es, es);
        std::memcpy(row + fd.offset + std::size_t{k} * es, tmp, es);
      }
    }
  }
}

}  // namespace lockstep::io
