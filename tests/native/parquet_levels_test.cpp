// Parquet definition levels read as validity and dense values spread around nulls
// (src/parquet/levels.cpp): hand-made runs of each kind, every error the reader names, random
// streams against a plain reference, and the in-place spread against an out-of-place one.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "parquet/levels.hpp"

namespace {

using namespace numdecode;
using namespace numdecode::parquet;

void uleb(std::vector<uint8_t>& out, uint64_t v) {
  do {
    uint8_t b = v & 0x7f;
    v >>= 7;
    out.push_back(b | (v ? 0x80 : 0));
  } while (v);
}

// The hybrid encoding of `levels`, as writers make it: runs of >= 8 equal levels as RLE runs, the
// rest in bit-packed groups of 8 (the last padded with zeros).
std::vector<uint8_t> encode(const std::vector<unsigned>& levels, unsigned bit_width) {
  std::vector<uint8_t> out;
  size_t i = 0;
  while (i < levels.size()) {
    size_t same = 1;
    while (i + same < levels.size() && levels[i + same] == levels[i]) ++same;
    if (same >= 8) {
      uleb(out, uint64_t(same) << 1);
      out.push_back(uint8_t(levels[i]));
      i += same;
      continue;
    }
    // one bit-packed group of 8
    uleb(out, (1u << 1) | 1);
    uint32_t buf = 0;
    unsigned bits = 0;
    for (size_t k = 0; k < 8; ++k) {
      const unsigned level = i + k < levels.size() ? levels[i + k] : 0;
      buf |= level << bits;
      bits += bit_width;
      while (bits >= 8) {
        out.push_back(uint8_t(buf));
        buf >>= 8;
        bits -= 8;
      }
    }
    i += 8;
  }
  return out;
}

std::string error_of(const std::vector<uint8_t>& runs, unsigned bit_width, size_t count, unsigned max_def) {
  std::vector<uint8_t> valid(count);
  try {
    definition_validity(Bytes(runs), bit_width, count, max_def, valid.data());
  } catch (const DecodeError& e) {
    return e.what();
  }
  return "";
}

TEST(ParquetLevels, RleAndBitPackedRunsOfOneBit) {
  // 10 present (RLE), then 8 bit-packed: 1,0,1,1,0,1,1,1, then 3 nulls (RLE)
  std::vector<uint8_t> runs = {20, 1, 3, 0b11101101, 6, 0};
  std::vector<uint8_t> valid(21, 9);
  EXPECT_EQ(definition_validity(Bytes(runs), 1, 21, 1, valid.data()), 16u);
  const std::vector<uint8_t> want = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 1, 0, 1, 1, 1, 0, 0, 0};
  EXPECT_EQ(valid, want);
}

TEST(ParquetLevels, LastBitPackedGroupIsCutAtTheCount) {
  // 5 values in a group of 8: the padding bits (set here) are not read
  std::vector<uint8_t> runs = {3, 0xff};
  std::vector<uint8_t> valid(8, 9);
  EXPECT_EQ(definition_validity(Bytes(runs), 1, 5, 1, valid.data()), 5u);
  EXPECT_EQ(valid, (std::vector<uint8_t>{1, 1, 1, 1, 1, 9, 9, 9}));  // nothing past the count
}

TEST(ParquetLevels, WiderLevelsNullAtEveryLevelBelowTheMaximum) {
  const std::vector<unsigned> levels = {2, 0, 1, 2, 2, 1, 0, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 0};
  const auto runs = encode(levels, 2);
  std::vector<uint8_t> valid(levels.size());
  size_t present = definition_validity(Bytes(runs), 2, levels.size(), 2, valid.data());
  size_t want_present = 0;
  for (size_t i = 0; i < levels.size(); ++i) {
    EXPECT_EQ(valid[i], levels[i] == 2) << i;
    want_present += levels[i] == 2;
  }
  EXPECT_EQ(present, want_present);
}

TEST(ParquetLevels, EveryErrorSaysWhat) {
  EXPECT_EQ(error_of({4, 1}, 1, 5, 1), "runs end after 2 of 5 values");
  EXPECT_EQ(error_of({0x84}, 1, 5, 1), "a run header is cut off after 0 of 5 values");
  EXPECT_EQ(error_of({0x80, 0x80, 0x80, 0x80, 0x80, 1}, 1, 5, 1), "a run header is longer than 5 bytes");
  EXPECT_EQ(error_of({0xfe, 0xff, 0xff, 0xff, 0x0f}, 1, 5, 1), "run header 4294967294 is out of range");
  EXPECT_EQ(error_of({1}, 1, 5, 1), "an empty bit-packed run");
  EXPECT_EQ(error_of({5, 0xff, 0xff}, 1, 5, 1), "a bit-packed run of 16 values passes the 5 values of the page");
  EXPECT_EQ(error_of({3}, 1, 5, 1), "a bit-packed run needs 1 bytes more than there are");
  EXPECT_EQ(error_of({0}, 1, 5, 1), "an empty RLE run");
  EXPECT_EQ(error_of({12, 1}, 1, 5, 1), "an RLE run of 6 values passes the 5 values of the page");
  EXPECT_EQ(error_of({10}, 1, 5, 1), "an RLE run value is cut off");
  EXPECT_EQ(error_of({10, 2}, 2, 5, 1), "definition level 2 at value 0 exceeds the column's maximum 1");
  EXPECT_EQ(error_of({3, 0b11111111, 0b00001111}, 2, 5, 2), "definition level 3 at value 0 exceeds the column's maximum 2");
  EXPECT_EQ(error_of({2, 1}, 9, 1, 300), "definition levels of 9 bits (1 to 8 are read here)");
  EXPECT_EQ(error_of({}, 1, 0, 1), "");  // no values, no runs
}

TEST(ParquetLevels, RandomStreamsMatchTheirLevels) {
  std::mt19937 rng(7);
  for (int round = 0; round < 300; ++round) {
    const unsigned max_def = 1 + rng() % 5;
    const unsigned bit_width = max_def < 2 ? 1 : max_def < 4 ? 2 : 3;
    const size_t count = rng() % 3000;
    const unsigned null_per_mille = rng() % 1001;
    std::vector<unsigned> levels(count);
    for (auto& l : levels) l = rng() % 1000 < null_per_mille ? rng() % max_def : max_def;
    const auto runs = encode(levels, bit_width);
    std::vector<uint8_t> valid(count + 1, 9);
    const size_t present = definition_validity(Bytes(runs), bit_width, count, max_def, valid.data());
    size_t want = 0;
    for (size_t i = 0; i < count; ++i) {
      ASSERT_EQ(valid[i], levels[i] == max_def) << "round " << round << " value " << i;
      want += levels[i] == max_def;
    }
    ASSERT_EQ(present, want);
    ASSERT_EQ(valid[count], 9);
  }
}

template <size_t W>
void check_spread(std::mt19937& rng, size_t rows, unsigned null_per_mille) {
  std::vector<uint8_t> valid(rows);
  size_t dense = 0;
  for (auto& v : valid) dense += (v = rng() % 1000 >= null_per_mille);
  std::vector<uint8_t> values(rows * W + 1);
  for (size_t i = 0; i < dense * W; ++i) values[i] = uint8_t(rng() | 1);
  values[rows * W] = 0xaa;
  // out of place: the k-th dense value at the k-th present row
  std::vector<uint8_t> want(rows * W, 0);
  for (size_t i = 0, k = 0; i < rows; ++i) {
    if (valid[i]) std::memcpy(&want[i * W], &values[k++ * W], W);
  }
  spread_nulls(values.data(), W, valid.data(), rows, dense);
  ASSERT_EQ(std::memcmp(values.data(), want.data(), rows * W), 0) << rows << " rows, " << null_per_mille << " per mille null";
  ASSERT_EQ(values[rows * W], 0xaa);
}

TEST(ParquetLevels, SpreadMatchesAnOutOfPlaceSpread) {
  std::mt19937 rng(11);
  for (int round = 0; round < 300; ++round) {
    const size_t rows = rng() % 2000;
    const unsigned nulls = round % 3 == 0 ? rng() % 30 : rng() % 1001;
    check_spread<4>(rng, rows, nulls);
    check_spread<8>(rng, rows, nulls);
  }
}

TEST(ParquetLevels, SpreadRefusesACountOrWidthThatDisagrees) {
  std::vector<uint8_t> valid = {1, 0, 1, 1};
  std::vector<uint8_t> values(4 * 8, 7);
  const auto error = [&](size_t width, size_t dense) -> std::string {
    try {
      spread_nulls(values.data(), width, valid.data(), valid.size(), dense);
    } catch (const DecodeError& e) {
      return e.what();
    }
    return "";
  };
  EXPECT_EQ(error(8, 2), "the validity holds 3 present rows, the page 2 values");
  EXPECT_EQ(error(8, 4), "the validity holds 3 present rows, the page 4 values");
  EXPECT_EQ(error(2, 3), "values of 2 bytes (4 or 8 are spread)");
  EXPECT_EQ(values, std::vector<uint8_t>(4 * 8, 7));  // nothing moved
  EXPECT_EQ(error(8, 3), "");
  EXPECT_EQ(values[8], 0);  // the null
}

}  // namespace
