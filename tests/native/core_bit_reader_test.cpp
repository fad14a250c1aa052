// The shared core every decoder builds on: LSB-first bit reads, bounds checks and error text.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "core/bit_reader.hpp"
#include "core/error.hpp"
#include "core/version.hpp"

using numdecode::BitReader;
using numdecode::Bytes;
using numdecode::DecodeError;

TEST(BitReader, ReadsLsbFirstAcrossBytes) {
  // 0xB4 = 1011'0100, 0x01: low bits come first.
  const std::vector<uint8_t> data{0xB4, 0x01};
  BitReader r{Bytes(data)};
  EXPECT_EQ(r.read(2, "a"), 0b00u);
  EXPECT_EQ(r.read(3, "b"), 0b101u);
  EXPECT_EQ(r.read(5, "c"), 0b1'101u);  // top 3 bits of byte 0, then bit 0 of byte 1
  EXPECT_EQ(r.bit_pos(), 10u);
  EXPECT_EQ(r.bits_left(), 6u);
}

TEST(BitReader, ReadsFullWidthWords) {
  std::vector<uint8_t> data(9);
  for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<uint8_t>(0x11 * (i + 1));
  BitReader r{Bytes(data)};
  EXPECT_EQ(r.read(4, "skip"), 0x1u);
  // 64 bits starting at bit 4 span all nine bytes.
  EXPECT_EQ(r.read(64, "wide"), 0x9887766554433221ull);
}

TEST(BitReader, ZeroFillsPastTheEndAndReportsOverrun) {
  const std::vector<uint8_t> data{0xFF, 0xFF, 0xFF};
  BitReader r{Bytes(data)};
  EXPECT_EQ(r.word_at(1), 0xFFFFull);  // only two bytes exist from offset 1
  EXPECT_EQ(r.read(24, "all"), 0xFFFFFFu);
  r.read_unchecked(1);
  try {
    r.check_in_bounds("bin weights");
    FAIL() << "reading past the end must throw";
  } catch (const DecodeError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("bin weights"), std::string::npos) << msg;
    EXPECT_NE(msg.find("bit 25"), std::string::npos) << msg;
    EXPECT_NE(msg.find("3 bytes"), std::string::npos) << msg;
  }
}

TEST(BitReader, AlignZeroRejectsNonzeroPadding) {
  const std::vector<uint8_t> ok{0x05, 0xAA};
  BitReader good{Bytes(ok)};
  good.read(3, "header");
  good.align_zero("header");
  EXPECT_EQ(good.byte_pos(), 1u);
  EXPECT_EQ(good.rest().size(), 1u);
  EXPECT_EQ(good.rest()[0], 0xAA);

  const std::vector<uint8_t> bad{0x15};  // bit 4 set after a 3-bit field
  BitReader r{Bytes(bad)};
  r.read(3, "header");
  EXPECT_THROW(r.align_zero("header"), DecodeError);
}

TEST(BitReader, EmptyInputHasNoBits) {
  BitReader r{Bytes()};
  EXPECT_EQ(r.bits_left(), 0u);
  EXPECT_EQ(r.word_at(0), 0u);
  EXPECT_THROW(r.read(1, "magic"), DecodeError);
}

TEST(Error, FailJoinsAllParts) {
  try {
    numdecode::fail("bin ", 3, " has ", 65u, " offset bits");
    FAIL() << "fail() must throw";
  } catch (const DecodeError& e) {
    EXPECT_STREQ(e.what(), "bin 3 has 65 offset bits");
  }
}

TEST(Version, IsSemver) {
  const std::string v = numdecode::version();
  int major = -1, minor = -1, patch = -1;
  ASSERT_EQ(std::sscanf(v.c_str(), "%d.%d.%d", &major, &minor, &patch), 3) << v;
  EXPECT_GE(major, 0);
}
