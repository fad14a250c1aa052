// LSB-first bit reader over an unpadded byte span, one 64-bit word at a time.
//
// Reads never touch memory past the span: a word that would straddle the end is
// assembled from the bytes that exist, zero-filled. Running past the end is not
// checked on every read (hot loops read first and check once per batch); call
// check_in_bounds() after a read unit, as the reference does.
//
// Members that cannot throw say noexcept: in the wasm build (JS-based C++ exceptions) a call
// that might throw, made where a destructor must run, goes through a JS trampoline.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "core/bytes.hpp"
#include "core/error.hpp"

namespace numdecode {

class BitReader {
 public:
  BitReader() = default;
  explicit BitReader(Bytes data) : data_(data.data()), len_(data.size()) {}

  size_t bit_pos() const noexcept { return bit_pos_; }
  size_t byte_pos() const noexcept { return bit_pos_ / 8; }
  size_t size_bytes() const noexcept { return len_; }
  size_t bits_left() const noexcept { return bit_pos_ >= 8 * len_ ? 0 : 8 * len_ - bit_pos_; }
  void seek_bits(size_t bit) noexcept { bit_pos_ = bit; }

  // The 64 bits starting at byte `byte`, zero past the end of the data.
  uint64_t word_at(size_t byte) const noexcept {
    if (byte + 8 <= len_) return load_le<uint64_t>(data_ + byte);
    uint64_t w = 0;
    if (byte < len_) std::memcpy(&w, data_ + byte, len_ - byte);
    return w;
  }

  // Up to 57 bits without a bounds check (see check_in_bounds).
  uint64_t read_unchecked(unsigned bits) noexcept {
    uint64_t w = word_at(bit_pos_ >> 3) >> (bit_pos_ & 7);
    bit_pos_ += bits;
    return bits == 0 ? 0 : (w & (~uint64_t{0} >> (64 - bits)));
  }

  // Up to 64 bits without a bounds check.
  uint64_t read_wide_unchecked(unsigned bits) noexcept {
    if (bits <= 56) return read_unchecked(bits);
    uint64_t lo = read_unchecked(32);
    uint64_t hi = read_unchecked(bits - 32);
    return lo | (hi << 32);
  }

  // Checked reads for metadata: `what` names the field in the error.
  uint64_t read(unsigned bits, const char* what) {
    uint64_t v = read_wide_unchecked(bits);
    check_in_bounds(what);
    return v;
  }

  void check_in_bounds(const char* what) const {
    if (bit_pos_ > 8 * len_)
      fail("insufficient data: ", what, " ends at bit ", bit_pos_, " but only ", 8 * len_,
           " bits (", len_, " bytes) are present");
  }

  // Skip to the next byte boundary; the skipped bits must be zero.
  void align_zero(const char* what) {
    check_in_bounds(what);
    unsigned rem = (8 - (bit_pos_ & 7)) & 7;
    if (rem == 0) return;
    uint64_t pad = read_unchecked(rem);
    if (pad != 0) fail("corrupt: nonzero padding bits after ", what, " at byte ", byte_pos() - 1);
  }

  // Current position must be byte-aligned; returns the remaining bytes.
  Bytes rest() const noexcept { return {data_ + byte_pos(), len_ - byte_pos()}; }
  const uint8_t* data() const noexcept { return data_; }

 private:
  const uint8_t* data_ = nullptr;
  size_t len_ = 0;
  size_t bit_pos_ = 0;
};

}  // namespace numdecode
