// LSB-first bit writer appending to a byte vector, the mirror of BitReader: bits fill each
// byte from its lowest bit, bytes go out in order, a 64-bit word at a time.
#pragma once
#include <cstddef>
#include <cstdint>
#include <algorithm>
#include <cstring>
#include <vector>

namespace numdecode {

class BitWriter {
 public:
  // Appends to out (which may already hold bytes); call finish() before reading out, and write to
  // out with nothing else until then (it may hold more bytes than written while this writes).
  explicit BitWriter(std::vector<uint8_t>& out) : out_(out), start_(out.size()), end_(out.size()) {}

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

  // Writes out the bits still held (zero-padded to a byte) and gives out its exact size; the
  // writer can go on after.
  void finish() {
    align();
    out_.resize(end_ + acc_bits_ / 8);
    for (unsigned i = 0; i < acc_bits_ / 8; ++i) out_[end_ + i] = uint8_t(acc_ >> (8 * i));
    end_ = out_.size();
    acc_ = 0;
    acc_bits_ = 0;
  }

  size_t bit_size() const { return end_ * 8 + acc_bits_; }

 private:
  // Whole words go into room made a block at a time: a resize per word cost more than the word.
  // The block grows with what this writer has written, not with all of out_: a file's chunks each
  // have a writer, and growing by half the file for each zero-filled bytes that finish() then cut
  // off again, chunk after chunk (8 192 chunks of 256 values took 3x as long as 8 192 files).
  void flush_word() {
    if (end_ + 8 > out_.size()) out_.resize(end_ + std::max<size_t>(4096, (end_ - start_) / 2));
    std::memcpy(out_.data() + end_, &acc_, 8);  // little-endian targets only (x86-64, wasm32)
    end_ += 8;
  }

  std::vector<uint8_t>& out_;
  size_t start_;  // out_'s size when this writer began
  size_t end_;    // bytes written to out_
  uint64_t acc_ = 0;
  unsigned acc_bits_ = 0;
};

}  // namespace numdecode
