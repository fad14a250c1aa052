#include "parquet/levels.hpp"

#include <algorithm>
#include <bit>
#include <cstring>
#include <string>

#include "core/error.hpp"

namespace numdecode::parquet {
namespace {

// Byte k of the answer is bit k of b: eight levels of one bit become eight validity bytes.
uint64_t bits_to_bytes(uint8_t b) {
  uint64_t x = b;
  x = (x | x << 28) & 0x0000000F0000000Full;
  x = (x | x << 14) & 0x0003000300030003ull;
  return (x | x << 7) & 0x0101010101010101ull;
}

constexpr uint64_t kAllPresent = 0x0101010101010101ull;

// What is wrong with levels or a spread: the words around its counts, every message made by one
// function (fail() is a function per list of part types: 0.2 kB gzip more of wasm here).
enum Problem {
  kBitWidth, kRunsEnd, kHeaderCut, kHeaderLong, kHeaderRange, kEmptyPacked, kPackedPasses, kPackedShort,
  kEmptyRle, kRlePasses, kRleValueCut, kLevelAbove, kSpreadWidth, kSpreadCount,
};
constexpr const char* kWords[][4] = {
    {"definition levels of ", " bits (1 to 8 are read here)"},
    {"runs end after ", " of ", " values"},
    {"a run header is cut off after ", " of ", " values"},
    {"a run header is longer than 5 bytes"},
    {"run header ", " is out of range"},
    {"an empty bit-packed run"},
    {"a bit-packed run of ", " values passes the ", " values of the page"},
    {"a bit-packed run needs ", " bytes more than there are"},
    {"an empty RLE run"},
    {"an RLE run of ", " values passes the ", " values of the page"},
    {"an RLE run value is cut off"},
    {"definition level ", " at value ", " exceeds the column's maximum ", ""},
    {"values of ", " bytes (4 or 8 are spread)"},
    {"the validity holds ", " present rows, the page ", " values"},
};

[[noreturn, gnu::noinline]] void refuse(Problem problem, uint64_t a = 0, uint64_t b = 0, uint64_t c = 0) {
  const auto& words = kWords[problem];
  const uint64_t counts[] = {a, b, c};
  std::string text = words[0];
  for (int k = 1; k < 4 && words[k] != nullptr; ++k) {
    detail::append_part(text, counts[k - 1]);
    text += words[k];
  }
  throw DecodeError(text);
}

}  // namespace

size_t definition_validity(Bytes runs, unsigned bit_width, size_t count, unsigned max_def, uint8_t* valid) {
  if (bit_width < 1 || bit_width > 8) refuse(kBitWidth, bit_width);
  const uint8_t* bytes = runs.data();
  const size_t end = runs.size();
  const unsigned mask = (1u << bit_width) - 1;
  size_t pos = 0;
  size_t seen = 0;
  size_t present = 0;
  while (seen < count) {
    if (pos >= end) refuse(kRunsEnd, seen, count);
    // ULEB128 run header, at most 5 bytes and below 2^31
    uint64_t header = 0;
    unsigned shift = 0;
    for (;;) {
      if (pos >= end) refuse(kHeaderCut, seen, count);
      const uint8_t b = bytes[pos++];
      header += uint64_t(b & 0x7f) << shift;
      if (!(b & 0x80)) break;
      shift += 7;
      if (shift > 28) refuse(kHeaderLong);
    }
    if (header > 0x7fffffff) refuse(kHeaderRange, header);
    // (counts in 64 bits: n * 8 passes 2^32 in wasm's 32-bit size_t)
    const uint64_t n = header >> 1;
    if (header & 1) {
      if (n == 0) refuse(kEmptyPacked);
      // the last bit-packed run may pad up to 7 values past the count
      if (seen + n * 8 >= uint64_t(count) + 8) refuse(kPackedPasses, n * 8, count);
      if (pos + n * bit_width > end) refuse(kPackedShort, pos + n * bit_width - end);
      const size_t values = size_t(std::min<uint64_t>(n * 8, count - seen));
      uint8_t* o = valid + seen;
      if (bit_width == 1 && max_def == 1) {
        // the bits are the validity, eight to a byte
        size_t whole = values / 8;
        for (size_t q = 0; q < whole; ++q) {
          const uint8_t b = bytes[pos + q];
          const uint64_t v = bits_to_bytes(b);
          std::memcpy(o + 8 * q, &v, 8);
          present += std::popcount(unsigned(b));
        }
        if (const size_t left = values % 8) {
          const uint8_t b = bytes[pos + whole] & uint8_t((1u << left) - 1);
          const uint64_t v = bits_to_bytes(b);
          std::memcpy(o + 8 * whole, &v, left);
          present += std::popcount(unsigned(b));
        }
      } else {
        uint32_t buf = 0;
        unsigned bits = 0;
        size_t p = pos;
        for (size_t i = 0; i < values; ++i) {
          while (bits < bit_width) {
            buf |= uint32_t(bytes[p++]) << bits;
            bits += 8;
          }
          const unsigned level = buf & mask;
          buf >>= bit_width;
          bits -= bit_width;
          if (level > max_def) refuse(kLevelAbove, level, seen + i, max_def);
          o[i] = level == max_def;
          present += level == max_def;
        }
      }
      pos += size_t(n) * bit_width;
      seen += values;
    } else {
      if (n == 0) refuse(kEmptyRle);
      if (seen + n > count) refuse(kRlePasses, n, count);  // (n < 2^30: no overflow)
      if (pos + 1 > end) refuse(kRleValueCut);  // levels of <= 8 bits take one byte
      const unsigned level = bytes[pos];
      if (level > max_def) refuse(kLevelAbove, level, seen, max_def);
      std::memset(valid + seen, level == max_def ? 1 : 0, n);
      if (level == max_def) present += n;
      pos += 1;
      seen += n;
    }
  }
  return present;
}

void spread_nulls(uint8_t* values, size_t width, const uint8_t* valid, size_t rows, size_t dense) {
  if (width != 4 && width != 8) refuse(kSpreadWidth, width);
  // a count that disagrees with the validity would move values past the rows: refused
  size_t ones = 0;
  for (size_t i = 0; i < rows; ++i) ones += valid[i] != 0;
  if (ones != dense) refuse(kSpreadCount, ones, dense);
  // From the end, a run of present rows at a time, so that no value is overwritten before it has
  // moved: j ends the values not yet moved, r the rows not yet filled; rows [0, j) are in place
  // once no null is left below r (j == r).
  size_t j = dense;
  size_t r = rows;
  while (j < r) {
    // the last null before r (there is one: j < r), eight validity bytes at a time
    size_t z = r;
    while (z >= 8) {
      uint64_t word;
      std::memcpy(&word, valid + z - 8, 8);
      if (word != kAllPresent) break;
      z -= 8;
    }
    while (valid[z - 1]) --z;
    const size_t len = r - z;  // present rows [z, r)
    j -= len;
    std::memmove(values + z * width, values + j * width, len * width);
    size_t s = z - 1;  // nulls [s, z)
    while (s > 0 && !valid[s - 1]) --s;
    std::memset(values + s * width, 0, (z - s) * width);
    r = s;
  }
}

}  // namespace numdecode::parquet
