// Little-endian loads from unaligned byte pointers; memcpy compiles to one load on every target.
#pragma once
#include <cstddef>
#include <cstdint>
#include <algorithm>
#include <cstring>
#include <memory>
#include <span>
#include <vector>

namespace numdecode {

using Bytes = std::span<const uint8_t>;

// An allocator that leaves new elements default-initialised (no zero fill) for typed
// output vectors that decoders overwrite completely.
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

// Decoded output: little-endian values as bytes. Unlike std::vector it never zero-fills
// on growth (decoders overwrite every byte), and it keeps its capacity across clear().
class ByteBuffer {
 public:
  ByteBuffer() = default;
  ByteBuffer(const ByteBuffer& o) { assign(o.data(), o.size()); }
  ByteBuffer& operator=(const ByteBuffer& o) {
    if (this != &o) assign(o.data(), o.size());
    return *this;
  }
  ByteBuffer(ByteBuffer&& o) noexcept : data_(std::move(o.data_)), size_(o.size_), capacity_(o.capacity_) {
    o.size_ = o.capacity_ = 0;
  }
  ByteBuffer& operator=(ByteBuffer&& o) noexcept {
    data_ = std::move(o.data_);
    size_ = o.size_;
    capacity_ = o.capacity_;
    o.size_ = o.capacity_ = 0;
    return *this;
  }

  uint8_t* data() { return data_.get(); }
  const uint8_t* data() const { return data_.get(); }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  const uint8_t* begin() const { return data(); }
  const uint8_t* end() const { return data() + size_; }
  uint8_t& operator[](size_t i) { return data_[i]; }
  uint8_t operator[](size_t i) const { return data_[i]; }

  void clear() { size_ = 0; }
  void resize(size_t n) {
    if (n > capacity_) reserve(std::max(n, capacity_ + capacity_ / 2));
    size_ = n;
  }
  void reserve(size_t n) {
    if (n <= capacity_) return;
    std::unique_ptr<uint8_t[]> bigger(new uint8_t[n]);  // default-initialised: no zero fill
    if (size_) std::memcpy(bigger.get(), data_.get(), size_);
    data_ = std::move(bigger);
    capacity_ = n;
  }
  void shrink_to_fit() {
    if (size_ == capacity_) return;
    ByteBuffer copy(*this);
    *this = std::move(copy);
  }
  void assign(const uint8_t* p, size_t n) {
    size_ = 0;
    resize(n);
    if (n) std::memcpy(data_.get(), p, n);
  }

 private:
  std::unique_ptr<uint8_t[]> data_;
  size_t size_ = 0, capacity_ = 0;
};

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
