// Little-endian loads from unaligned byte pointers; memcpy compiles to one load on every target.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>

namespace numdecode {

using Bytes = std::span<const uint8_t>;

// std::bit_cast is missing from Emscripten 3.1.6's libc++; the builtin is in both compilers.
template <class To, class From>
constexpr To bit_cast(const From& from) noexcept {
  static_assert(sizeof(To) == sizeof(From));
  return __builtin_bit_cast(To, from);
}

template <class T>
inline T load_le(const uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;  // every target we build for (x86-64, wasm32) is little-endian
}

}  // namespace numdecode
