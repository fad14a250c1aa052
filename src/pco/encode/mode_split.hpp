// Splits numbers into latent variables by mode: the inverse of mode/join.hpp and
// mode/float_mult.hpp. Numbers arrive as their bits (L), f16 as its 16 bits.
#pragma once
#include <algorithm>
#include <cstdint>
#include <span>
#include <unordered_map>
#include <vector>

#include "pco/encode/float_value.hpp"
#include "pco/encode/latent_vec.hpp"
#include "pco/batch.hpp"
#include "pco/metadata.hpp"
#include "pco/mode/float_mult.hpp"
#include "pco/numbers.hpp"

namespace numdecode::pco {

// A chunk's numbers as latent variables: primary (u32 dictionary indices for Dict), and the
// secondary of the two-variable modes.
template <class L>
struct SplitLatents {
  Mode mode;
  LatentVec<L> primary;
  LatentVec<uint32_t> dict_indices;
  LatentVec<L> secondary;
  bool has_secondary = false;
};

// A split of n numbers into two variables, sized.
template <class L>
SplitLatents<L> two_variables(ModeKind kind, size_t n) {
  SplitLatents<L> s;
  s.mode.kind = kind;
  s.has_secondary = true;
  s.primary.resize(n);
  s.secondary.resize(n);
  return s;
}

template <class L, NumKind K>
SplitLatents<L> split_classic(std::span<const L> nums) {
  SplitLatents<L> s;
  s.primary.resize(nums.size());
  for (size_t i = 0; i < nums.size(); ++i) s.primary[i] = to_latent_ordered<L, K>(nums[i]);
  return s;
}

// num = primary * base + secondary, on ordered latents.
template <class L, NumKind K>
SplitLatents<L> split_int_mult(std::span<const L> nums, L base) {
  SplitLatents<L> s = two_variables<L>(ModeKind::IntMult, nums.size());
  s.mode.base = base;
  for (size_t i = 0; i < nums.size(); ++i) {
    const L u = to_latent_ordered<L, K>(nums[i]);
    s.primary[i] = L(u / base);
    s.secondary[i] = L(u % base);
  }
  return s;
}

// num = round(num / base) * base, then an adjustment in ULPs (ordered-latent steps) taken against
// the product as the decoder computes it, so that every float (NaN payloads too) comes back.
// inv_base: 1 / base, or the exact reciprocal the base was snapped from (e.g. 100 for 0.01).
template <class L>
SplitLatents<L> split_float_mult(std::span<const L> nums, L base_bits, L inv_base_bits) {
  using F = typename FloatOfBits<L>::type;
  using T = FloatTraits<F>;
  SplitLatents<L> s = two_variables<L>(ModeKind::FloatMult, nums.size());
  s.mode.base = T::to_latent_ordered(T::from_bits(base_bits));
  const F inv_base = T::from_bits(inv_base_bits);
  // The decoder's products, a batch at a time through its own join, with adjustments of 0
  // (l1 = 2^(bits-1) is 0 ULPs).
  L no_adjustment[kBatch], products[kBatch];
  std::fill_n(no_adjustment, kBatch, kTopBit<L>);
  for (size_t start = 0; start < nums.size(); start += kBatch) {
    const size_t b = std::min(kBatch, nums.size() - start);
    const L* num = nums.data() + start;
    L* primary = s.primary.data() + start;
    for (size_t i = 0; i < b; ++i) primary[i] = T::int_float_to_latent(T::round(T::from_bits(num[i]) * inv_base));
    FloatMult<L, L>::join(s.mode.base, primary, no_adjustment, b, products);
    L* secondary = s.secondary.data() + start;
    for (size_t i = 0; i < b; ++i)
      secondary[i] = L(float_to_latent_ordered<L>(num[i]) - float_to_latent_ordered<L>(products[i]) + kTopBit<L>);
  }
  return s;
}

// The top bits of the ordered latent, and its k low bits (mirrored for negatives, so that an
// exactly quantized number has 0 either way).
template <class L>
SplitLatents<L> split_float_quant(std::span<const L> nums, unsigned k) {
  SplitLatents<L> s = two_variables<L>(ModeKind::FloatQuant, nums.size());
  s.mode.k = k;
  const L low_mask = L((L(1) << k) - 1);
  for (size_t i = 0; i < nums.size(); ++i) {
    const L u = float_to_latent_ordered<L>(nums[i]);
    s.primary[i] = L(u >> k);
    const L low = L(u & low_mask);
    const bool positive = (nums[i] & kTopBit<L>) == 0;
    s.secondary[i] = positive ? low : L(low_mask - low);
  }
  return s;
}

// The distinct numbers, most frequent first, and each number's index among them.
template <class L, NumKind K>
SplitLatents<L> split_dict(std::span<const L> nums) {
  SplitLatents<L> s;
  s.mode.kind = ModeKind::Dict;
  std::unordered_map<L, uint32_t> counts;
  for (L x : nums) ++counts[to_latent_ordered<L, K>(x)];
  std::vector<std::pair<L, uint32_t>> by_count(counts.begin(), counts.end());
  std::sort(by_count.begin(), by_count.end(), [](const auto& a, const auto& b) {
    return a.second != b.second ? a.second > b.second : a.first < b.first;
  });
  std::unordered_map<L, uint32_t> index;
  for (const auto& [value, count] : by_count) {
    index.emplace(value, uint32_t(s.mode.dict.size()));
    s.mode.dict.push_back(value);
  }
  s.dict_indices.resize(nums.size());
  for (size_t i = 0; i < nums.size(); ++i) s.dict_indices[i] = index[to_latent_ordered<L, K>(nums[i])];
  return s;
}

}  // namespace numdecode::pco
