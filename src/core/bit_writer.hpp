// LSB-first bit writer appending to a byte vector, the mirror of BitReader: bits fill each
// byte from its lowest bit, bytes go out in order, a 64-bit word at a time.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

namespace numdecode {

class BitWriter {
 public:
  // Appends to out (which may already hold bytes); call finish() before reading out.
  explicit BitWriter(std::vector<uint8_t>& out) : out_(out) {}

  // The low `bits` bits of value (0..64; higher bits of value are ignored).
  void write(uint64_t value, unsigned bits) {
    if (bits < 64) value &= (uint64_t{1} << bits) - 1;
    acc_ |= value << acc_bits_;  // acc_bits_ < 64
    const unsigned total = acc_bits_ + bits;
    if (total >= 64) {
      flush_word();
      acc_ = acc_bits_ == 0 ? 0 : value >> (64 - acc_bits_);
      acc_bits_ = total - 64;
    } else {
      acc_bits_ = total;
    }
  }

  // Zero bits up to the next byte boundary.
  void align() {
    const unsigned pad = (8 - acc_bits_ % 8) % 8;
    if (pad) write(0, pad);
  }

  // Writes out the bits still held (zero-padded to a byte); the writer can go on after.
  void finish() {
    align();
    const size_t at = out_.size();
    out_.resize(at + acc_bits_ / 8);
    for (unsigned i = 0; i < acc_bits_ / 8; ++i) out_[at + i] = uint8_t(acc_ >> (8 * i));
    acc_ = 0;
    acc_bits_ = 0;
  }

  size_t bit_size() const { return out_.size() * 8 + acc_bits_; }

 private:
  void flush_word() {
    const size_t at = out_.size();
    out_.resize(at + 8);
    std::memcpy(out_.data() + at, &acc_, 8);  // little-endian targets only (x86-64, wasm32)
  }

  std::vector<uint8_t>& out_;
  uint64_t acc_ = 0;
  unsigned acc_bits_ = 0;
};

}  // namespace numdecode
