#include "pco/encode/mode_choice.hpp"

#include <stdexcept>
#include <string>

#include "pco/encode/float_mult_choice.hpp"
#include "pco/encode/float_quant_choice.hpp"
#include "pco/encode/int_mult_choice.hpp"
#include "pco/encode/sampling.hpp"

namespace numdecode::pco {

namespace {

[[noreturn]] void invalid(const std::string& message) { throw std::invalid_argument("Pco encode: " + message); }

template <class L, NumKind K>
ModeCandidate auto_int_mode(std::span<const L> nums, unsigned level) {
  LatentVec<L> latents(nums.size());
  for (size_t i = 0; i < nums.size(); ++i) latents[i] = to_latent_ordered<L, K>(nums[i]);
  if (const auto base = choose_int_mult_base<L>(latents, level)) return {ModeKind::IntMult, *base};
  return {};
}

// The bids that beat Classic, best first (pcodec takes the best; the chunk encoder tries both
// when two bid, as their estimates of bits saved can rank them wrongly).
template <class L>
std::vector<ModeCandidate> auto_float_modes(std::span<const L> nums, unsigned level) {
  using F = typename FloatOfBits<L>::type;
  using T = FloatTraits<F>;
  // Sampled |x| of normal numbers up to half the largest float: the others teach no mode.
  // The largest float's bits are the exponent field's minus 1; halving takes 1 off the exponent.
  constexpr L kExpField = L(((L(1) << float_exponent_bits(T::kBits)) - 1) << T::kPrecision);
  constexpr L kMaxForSampling = L(kExpField - 1 - (L(1) << T::kPrecision));
  std::vector<F> sample;
  for (size_t i : sample_indices(nums.size(), level)) {
    const F x = T::from_bits(nums[i]);
    if (T::is_normal(x) && T::to_bits(T::abs(x)) <= kMaxForSampling) sample.push_back(T::abs(x));
  }
  if (sample.size() < kMinSample) return {ModeCandidate{}};
  const auto mult = float_mult_bid<F>(sample);
  const auto quant = float_quant_bid<F>(sample);
  std::vector<ModeCandidate> out;
  ModeCandidate m{ModeKind::FloatMult};
  if (mult) m.base = T::to_bits(mult->config.base), m.inv_base = T::to_bits(mult->config.inv_base);
  ModeCandidate q{ModeKind::FloatQuant};
  if (quant) q.k = quant->k;
  if (mult && quant) {
    if (quant->bits_saved_per_num >= mult->bits_saved_per_num) out = {q, m};
    else out = {m, q};
  } else if (mult) {
    out = {m};
  } else if (quant) {
    out = {q};
  } else {
    out = {ModeCandidate{}};
  }
  return out;
}

}  // namespace

template <class L, NumKind K>
std::vector<ModeCandidate> mode_candidates(std::span<const L> nums, const ModeSpec& spec, unsigned level) {
  constexpr bool kFloat = K == NumKind::Float;
  switch (spec.kind) {
    case ModeSpec::Kind::Auto:
      if constexpr (kFloat) return auto_float_modes<L>(nums, level);
      else return {auto_int_mode<L, K>(nums, level)};
    case ModeSpec::Kind::Classic: return {ModeCandidate{}};
    case ModeSpec::Kind::Dict: return {ModeCandidate{ModeKind::Dict}};
    case ModeSpec::Kind::IntMult: {
      if (kFloat) invalid("IntMult mode applies to integers only");
      const L base = L(spec.int_base);
      if (base == 0 || base != spec.int_base)
        invalid("IntMult base must be in 1.." + std::to_string(uint64_t(L(~L(0)))) + ", got " + std::to_string(spec.int_base));
      return {ModeCandidate{ModeKind::IntMult, base}};
    }
    case ModeSpec::Kind::FloatMult:
      if constexpr (!kFloat) {
        invalid("FloatMult mode applies to floats only");
      } else {
        using F = typename FloatOfBits<L>::type;
        using T = FloatTraits<F>;
        const F base = T::from_f64(spec.float_base);
        if (!T::is_finite(base) || T::abs(base) == T::zero())
          invalid("FloatMult base must be finite and nonzero in the number type, got " + std::to_string(spec.float_base));
        return {ModeCandidate{ModeKind::FloatMult, T::to_bits(base), T::to_bits(T::inv(base))}};
      }
    case ModeSpec::Kind::FloatQuant: {
      if (!kFloat) invalid("FloatQuant mode applies to floats only");
      constexpr unsigned precision = float_precision_bits(sizeof(L) * 8);
      if (spec.k == 0 || spec.k > precision)
        invalid("FloatQuant k must be in 1.." + std::to_string(precision) + ", got " + std::to_string(spec.k));
      ModeCandidate q{ModeKind::FloatQuant};
      q.k = spec.k;
      return {q};
    }
  }
  invalid("unknown mode");
}

template <class L, NumKind K>
SplitLatents<L> split_by(const ModeCandidate& mode, std::span<const L> nums) {
  switch (mode.kind) {
    case ModeKind::Classic: return split_classic<L, K>(nums);
    case ModeKind::Dict: return split_dict<L, K>(nums);
    case ModeKind::IntMult: return split_int_mult<L, K>(nums, L(mode.base));
    case ModeKind::FloatMult:
      if constexpr (K == NumKind::Float && sizeof(L) >= 2) return split_float_mult<L>(nums, L(mode.base), L(mode.inv_base));
      break;
    case ModeKind::FloatQuant:
      if constexpr (K == NumKind::Float && sizeof(L) >= 2) return split_float_quant<L>(nums, mode.k);
      break;
  }
  invalid("a float mode for integers");
}

#define NUMDECODE_MODE_CHOICE(L, K)                                                                              \
  template std::vector<ModeCandidate> mode_candidates<L, K>(std::span<const L>, const ModeSpec&, unsigned); \
  template SplitLatents<L> split_by<L, K>(const ModeCandidate&, std::span<const L>);
NUMDECODE_MODE_CHOICE(uint8_t, NumKind::Unsigned)
NUMDECODE_MODE_CHOICE(uint8_t, NumKind::Signed)
NUMDECODE_MODE_CHOICE(uint16_t, NumKind::Unsigned)
NUMDECODE_MODE_CHOICE(uint16_t, NumKind::Signed)
NUMDECODE_MODE_CHOICE(uint16_t, NumKind::Float)
NUMDECODE_MODE_CHOICE(uint32_t, NumKind::Unsigned)
NUMDECODE_MODE_CHOICE(uint32_t, NumKind::Signed)
NUMDECODE_MODE_CHOICE(uint32_t, NumKind::Float)
NUMDECODE_MODE_CHOICE(uint64_t, NumKind::Unsigned)
NUMDECODE_MODE_CHOICE(uint64_t, NumKind::Signed)
NUMDECODE_MODE_CHOICE(uint64_t, NumKind::Float)
#undef NUMDECODE_MODE_CHOICE

}  // namespace numdecode::pco
