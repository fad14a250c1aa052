// Little-endian loads from unaligned byte pointers; memcpy compiles to one load on every target.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <span>
#include <vector>

namespace numdecode {

using Bytes = std::span<const uint8_t>;

// An allocator that leaves new elements uninitialised: decoders overwrite every byte, so
// zero-filling output first would only cost a pass over memory.
template <class T>
struct DefaultInitAllocator : std::allocator<T> {
  template <class U>
  struct rebind {
    using other = DefaultInitAllocator<U>;
  };
  DefaultInitAllocator() = default;
  template <class U>
  DefaultInitAllocator(const DefaultInitAllocator<U>&) noexcept {}
  template <class U>
  void construct(U* p) noexcept {
    ::new (static_cast<void*>(p)) U;
  }
  template <class U, class... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
};

// Decoded output: little-endian values as bytes.
using ByteBuffer = std::vector<uint8_t, DefaultInitAllocator<uint8_t>>;

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
