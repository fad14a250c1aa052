// Pieces of the Pco decoder checked against values worked out by hand.
#include <gtest/gtest.h>

#include "pco/chunk_decoder.hpp"
#include "pco/numbers.hpp"

using namespace numdecode;
using namespace numdecode::pco;

TEST(PcoAns, SpreadMatchesReferenceVector) {
  // weights [1,1,3,11] spread over 16 states (the reference's own test vector)
  std::vector<Bin> bins;
  for (uint32_t w : {1u, 1u, 3u, 11u}) bins.push_back(Bin{w, 0, 0});
  std::vector<uint32_t> expected = {0, 3, 2, 3, 2, 3, 3, 3, 3, 1, 3, 2, 3, 3, 3, 3};
  EXPECT_EQ(spread_state_symbols(4, bins), expected);
}

TEST(PcoNumbers, OrderedLatentsRoundTrip) {
  EXPECT_EQ((from_latent_ordered<uint32_t, NumKind::Signed>(0)), 0x80000000u);  // i32::MIN
  EXPECT_EQ((from_latent_ordered<uint32_t, NumKind::Float>(0x80000000u)), 0u);  // +0.0
  EXPECT_EQ((from_latent_ordered<uint32_t, NumKind::Float>(0x7fffffffu)), 0x80000000u);  // -0.0
  for (uint32_t bits : {0u, 0x3f800000u, 0xbf800000u, 0x7f800000u, 0xff800000u, 0x00000001u})
    EXPECT_EQ((from_latent_ordered<uint32_t, NumKind::Float>(float_to_latent_ordered<uint32_t>(bits))), bits);
}

TEST(PcoNumbers, HalfConversionsRoundToNearestEven) {
  EXPECT_EQ(f32_to_f16_bits(1.0f), 0x3c00);
  EXPECT_EQ(f32_to_f16_bits(65504.0f), 0x7bff);
  EXPECT_EQ(f32_to_f16_bits(65520.0f), 0x7c00);  // halfway to the next binade rounds to inf
  EXPECT_EQ(f32_to_f16_bits(1.0f + 1.0f / 2048), 0x3c00);  // tie -> even
  EXPECT_EQ(f32_to_f16_bits(1.0f + 3.0f / 2048), 0x3c02);  // tie -> even (up)
  EXPECT_EQ(f32_to_f16_bits(5.960464477539063e-08f), 0x0001);  // smallest subnormal
  EXPECT_EQ(f32_to_f16_bits(-0.0f), 0x8000);
  for (uint32_t h = 0; h < 0x7c00; ++h) EXPECT_EQ(f32_to_f16_bits(f16_bits_to_f32(uint16_t(h))), h);
}
