// Decode paths the reference compressor never writes (secondary_uses_delta = 1, Lookback
// state_n_log > 0, FloatMult with a negative base), checked on hand-built wrapped chunks
// against a direct model of the spec.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>

#include "pco/wrapped.hpp"

using namespace numdecode;
using namespace numdecode::pco;

namespace {

// LSB-first bit writer matching the format's bit packing.
class BitWriter {
 public:
  void write(uint64_t value, unsigned bits) {
    for (unsigned i = 0; i < bits; ++i) {
      if (bit_ % 8 == 0) bytes_.push_back(0);
      if ((value >> i) & 1) bytes_.back() |= uint8_t(1u << (bit_ % 8));
      ++bit_;
    }
  }
  void align() { bit_ = (bit_ + 7) / 8 * 8; }
  std::vector<uint8_t> bytes() const { return bytes_; }

 private:
  std::vector<uint8_t> bytes_;
  size_t bit_ = 0;
};

constexpr uint32_t kMid = 0x80000000u;
const std::vector<uint8_t> kHeader41 = {4, 1};

// A latent variable with one bin: no tANS bits, every latent is lower + raw offset bits.
void write_single_bin_var(BitWriter& w, uint32_t lower, unsigned offset_bits) {
  w.write(0, 4);   // ans_size_log
  w.write(1, 15);  // one bin
  w.write(lower, 32);
  w.write(offset_bits, 6);
}

std::vector<uint32_t> decode_u32(const std::vector<uint8_t>& meta, const std::vector<uint8_t>& page, size_t n) {
  ChunkDecoder chunk = read_wrapped_chunk(meta, DType::U32, read_wrapped_header(kHeader41));
  auto bytes = decode_wrapped_page(chunk, page, n);
  std::vector<uint32_t> out(n);
  std::memcpy(out.data(), bytes.data(), bytes.size());
  return out;
}

// Lookback model: x[0..s) is the page state; x[s+j] = d[j] + x[s+j-lb[j]], reading 0 before the page.
std::vector<uint32_t> lookback_model(const std::vector<uint32_t>& state, const std::vector<uint32_t>& lb,
                                     const std::vector<uint32_t>& d) {
  std::vector<uint32_t> x = state;
  for (size_t j = 0; j < d.size(); ++j) {
    size_t at = state.size() + j;
    x.push_back(d[j] + (lb[j] <= at ? x[at - lb[j]] : 0));
  }
  return x;
}

struct LookbackCase {
  unsigned window_n_log, state_n_log;
  size_t n;
};

class PcoLookbackState : public ::testing::TestWithParam<LookbackCase> {};

TEST_P(PcoLookbackState, MatchesModel) {
  const auto [window_n_log, state_n_log, n] = GetParam();
  const size_t state_n = size_t{1} << state_n_log, window_n = size_t{1} << window_n_log;
  std::mt19937 rng(window_n_log * 131 + state_n_log * 7 + unsigned(n));
  std::vector<uint32_t> state(state_n), lb, d;
  for (auto& s : state) s = rng();
  for (size_t j = 0; j + state_n < n; ++j) {
    lb.push_back(1 + rng() % window_n);
    d.push_back(rng() % 1000);
  }
  std::vector<uint32_t> expected = lookback_model(state, lb, d);
  expected.resize(n);

  BitWriter meta;
  meta.write(0, 4);  // Classic
  meta.write(2, 4);  // Lookback
  meta.write(window_n_log - 1, 5);
  meta.write(state_n_log, 4);
  meta.write(0, 1);  // secondary_uses_delta (no secondary in Classic)
  write_single_bin_var(meta, 1, window_n_log);  // lookback = 1 + offset, offset < window_n
  write_single_bin_var(meta, 0, 32);
  meta.align();

  BitWriter page;  // delta var: no state, 4 empty tANS states; primary: its state
  for (uint32_t s : state) page.write(s, 32);
  page.align();
  size_t consumed = 0;  // batches of 256 outputs each read up to 256 of the n - state_n deltas
  for (size_t start = 0; start < n; start += 256) {
    size_t remaining = n - start;
    size_t k = remaining > state_n ? std::min<size_t>(256, remaining - state_n) : 0;
    for (size_t j = 0; j < k; ++j) page.write(lb[consumed + j] - 1, window_n_log);
    for (size_t j = 0; j < k; ++j) page.write(d[consumed + j] - kMid, 32);  // stored centered
    consumed += k;
  }
  ASSERT_EQ(consumed, d.size());
  page.align();
  EXPECT_EQ(decode_u32(meta.bytes(), page.bytes(), n), expected);
}

INSTANTIATE_TEST_SUITE_P(States, PcoLookbackState,
                         ::testing::Values(LookbackCase{2, 1, 6}, LookbackCase{4, 2, 300}, LookbackCase{10, 9, 700},
                                           LookbackCase{10, 9, 512}, LookbackCase{12, 8, 3000},
                                           LookbackCase{24, 3, 1000}, LookbackCase{5, 5, 40},
                                           LookbackCase{4, 2, 2000}, LookbackCase{8, 3, 5000}));

TEST(PcoLookback, LookbackPastWindowIsAnError) {
  BitWriter meta;
  meta.write(0, 4);
  meta.write(2, 4);
  meta.write(2 - 1, 5);  // window 4
  meta.write(0, 4);
  meta.write(0, 1);
  write_single_bin_var(meta, 1, 3);  // lookbacks up to 8: past the window
  write_single_bin_var(meta, 0, 32);
  meta.align();
  BitWriter page;
  page.write(5, 32);
  page.align();
  page.write(6, 3);  // lookback 7
  page.write(0, 32);
  page.align();
  try {
    decode_u32(meta.bytes(), page.bytes(), 2);
    FAIL() << "lookback 7 in a window of 4 was accepted";
  } catch (const DecodeError& e) {
    EXPECT_NE(std::string(e.what()).find("lookback 7 exceeds the window of 4"), std::string::npos) << e.what();
  }
}

// IntMult with Consecutive order 1 on both latents (secondary_uses_delta = 1).
TEST(PcoSecondaryDelta, ConsecutiveOnBothLatents) {
  const std::vector<uint32_t> primary = {3, 5, 4, 8, 8, 1}, secondary = {1, 2, 2, 0, 9, 4};
  BitWriter meta;
  meta.write(1, 4);    // IntMult
  meta.write(10, 32);  // base
  meta.write(1, 4);    // Consecutive
  meta.write(1, 3);    // order 1
  meta.write(1, 1);    // secondary_uses_delta
  write_single_bin_var(meta, 0, 32);
  write_single_bin_var(meta, 0, 32);
  meta.align();
  BitWriter page;
  page.write(primary[0], 32);  // primary state, then 4 zero-bit tANS states
  page.write(secondary[0], 32);
  page.align();
  for (size_t i = 1; i < primary.size(); ++i) page.write(primary[i] - primary[i - 1] - kMid, 32);
  for (size_t i = 1; i < secondary.size(); ++i) page.write(secondary[i] - secondary[i - 1] - kMid, 32);
  page.align();
  std::vector<uint32_t> expected;
  for (size_t i = 0; i < primary.size(); ++i) expected.push_back(primary[i] * 10 + secondary[i]);
  EXPECT_EQ(decode_u32(meta.bytes(), page.bytes(), primary.size()), expected);
}

// Lookback with secondary_uses_delta: both latents follow the same lookbacks.
TEST(PcoSecondaryDelta, LookbackOnBothLatents) {
  std::vector<uint32_t> lb = {1, 2, 1, 3, 2}, dp = {4, 0, 7, 1, 2}, ds = {0, 1, 0, 2, 1};
  std::vector<uint32_t> p = lookback_model({6}, lb, dp), s = lookback_model({3}, lb, ds);
  BitWriter meta;
  meta.write(1, 4);  // IntMult
  meta.write(100, 32);
  meta.write(2, 4);      // Lookback
  meta.write(2 - 1, 5);  // window 4
  meta.write(0, 4);      // state_n 1
  meta.write(1, 1);      // secondary_uses_delta
  write_single_bin_var(meta, 1, 2);
  write_single_bin_var(meta, 0, 32);
  write_single_bin_var(meta, 0, 32);
  meta.align();
  BitWriter page;
  page.write(6, 32);
  page.write(3, 32);
  page.align();
  for (uint32_t x : lb) page.write(x - 1, 2);
  for (uint32_t x : dp) page.write(x - kMid, 32);
  for (uint32_t x : ds) page.write(x - kMid, 32);
  page.align();
  std::vector<uint32_t> expected;
  for (size_t i = 0; i < p.size(); ++i) expected.push_back(p[i] * 100 + s[i]);
  EXPECT_EQ(decode_u32(meta.bytes(), page.bytes(), p.size()), expected);
}

// FloatMult: number = float(int latent) * base, then moved by the secondary latent's ULPs in
// the order-preserving latent space. The reference only writes positive bases; the decoder's
// SIMD path derives the product's sign from its factors, so check negative bases too.
template <class F, class U>
U to_ordered(F f) {
  U bits;
  std::memcpy(&bits, &f, sizeof bits);
  constexpr U top = U(1) << (sizeof(U) * 8 - 1);
  return (bits & top) ? U(~bits) : U(bits | top);
}

template <class U>
U from_ordered(U latent) {
  constexpr U top = U(1) << (sizeof(U) * 8 - 1);
  return (latent & top) ? U(latent ^ top) : U(~latent);
}

// A magnitude as the format's float: exact below 2^digits, beyond it the bits go on linearly.
template <class F, class U>
F int_float(U m) {
  constexpr U big = U(1) << std::numeric_limits<F>::digits;
  if (m < big) return F(m);
  const F big_f = F(big);
  U bits;
  std::memcpy(&bits, &big_f, sizeof bits);
  bits = U(bits + (m - big));
  F f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

// The primary latent holds a sign and magnitude: top + m for +m, top - 1 - m for -m (so -0.0
// exists); the secondary, top + ULPs.
template <class F, class U>
void check_float_mult(F base, DType dtype) {
  constexpr unsigned bits = sizeof(U) * 8;
  constexpr U top = U(1) << (bits - 1);
  std::vector<bool> negative;
  std::vector<U> magnitudes;
  std::vector<int> ulps;
  std::mt19937 rng(7);
  for (int i = 0; i < 200; ++i) {
    negative.push_back(rng() % 2);
    magnitudes.push_back(U(rng() % 10001));
    ulps.push_back(int(rng() % 5) - 2);
  }
  negative[0] = false, magnitudes[0] = 0, ulps[0] = -1;  // +0 * base one ULP down: across zero
  negative[1] = true, magnitudes[1] = 0, ulps[1] = 1;    // -0 * base one ULP up
  // Magnitudes past the mantissa take the exact scalar path; mid-vector, so that the SIMD
  // kernels hand over to it (and back) inside a batch.
  constexpr unsigned mantissa_digits = std::numeric_limits<F>::digits;
  magnitudes[6] = (U(1) << mantissa_digits) + 5;
  negative[9] = true, magnitudes[9] = (U(1) << mantissa_digits) + 1;
  BitWriter meta;
  meta.write(2, 4);  // FloatMult
  meta.write(to_ordered<F, U>(base), bits);
  meta.write(0, 4);  // no delta
  for (int var = 0; var < 2; ++var) {
    meta.write(0, 4);  // ans_size_log
    meta.write(1, 15);
    meta.write(0, bits);                   // lower
    meta.write(bits, bits == 64 ? 7 : 6);  // offset bits, in a field of 7 (64-bit) or 6 bits
  }
  meta.align();
  BitWriter page;  // no delta state, zero-bit tANS states
  for (size_t i = 0; i < magnitudes.size(); ++i)
    page.write(negative[i] ? U(top - 1 - magnitudes[i]) : U(top + magnitudes[i]), bits);
  for (int u : ulps) page.write(U(U(u) + top), bits);
  page.align();

  ChunkDecoder chunk = read_wrapped_chunk(meta.bytes(), dtype, read_wrapped_header(kHeader41));
  auto bytes = decode_wrapped_page(chunk, page.bytes(), magnitudes.size());
  ASSERT_EQ(bytes.size(), magnitudes.size() * sizeof(U));
  for (size_t i = 0; i < magnitudes.size(); ++i) {
    const F f = negative[i] ? -int_float<F, U>(magnitudes[i]) : int_float<F, U>(magnitudes[i]);
    const U expected = from_ordered<U>(U(to_ordered<F, U>(f * base) + U(ulps[i])));
    U got;
    std::memcpy(&got, bytes.data() + i * sizeof(U), sizeof(U));
    ASSERT_EQ(got, expected) << "value " << i << ": " << f << " * " << base << ", " << ulps[i] << " ULPs";
  }
}

TEST(PcoFloatMult, NegativeAndPositiveBasesF64) {
  check_float_mult<double, uint64_t>(-0.1, DType::F64);
  check_float_mult<double, uint64_t>(0.1, DType::F64);
  check_float_mult<double, uint64_t>(-1.0e305, DType::F64);  // most products overflow to -inf
}

TEST(PcoFloatMult, NegativeAndPositiveBasesF32) {
  check_float_mult<float, uint32_t>(-0.25f, DType::F32);
  check_float_mult<float, uint32_t>(1.5f, DType::F32);
}

}  // namespace
