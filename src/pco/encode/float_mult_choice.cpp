#include "pco/encode/float_mult_choice.hpp"

#include <algorithm>
#include <bit>
#include <climits>
#include <cmath>
#include <utility>
#include <vector>

#include "pco/encode/float_value.hpp"
#include "pco/encode/int_mult_choice.hpp"
#include "pco/encode/sampling.hpp"

namespace numdecode::pco {

namespace {

constexpr unsigned kRequiredPrecisionBits = 6;
constexpr double kSnapAbsolute = 0.02;
constexpr double kSnapDecimalRelative = 0.01;
constexpr unsigned kInterestingTrailingZeros = 5;
constexpr double kRequiredTrailingZerosShare = 0.5;
constexpr double kRequiredGcdPairShare = 0.001;
constexpr double kRequiredBitsSaved = 0.5;

template <class F>
struct Ops : FloatTraits<F> {
  using T = FloatTraits<F>;
  using L = typename T::L;
  // 2^power for any power (underflow to 0, overflow to inf).
  static F pow2(int power) { return T::from_f64(std::ldexp(1.0, power)); }
  static F abs_diff(F a, F b) { return a < b ? b - a : a - b; }
  static F min(F a, F b) { return b < a ? b : a; }
  static F max(F a, F b) { return a < b ? b : a; }
};

template <class F>
bool is_approx_zero(F small, F big) {
  using O = Ops<F>;
  return small <= big * O::pow2(-int(O::kPrecision - kRequiredPrecisionBits));
}

// The approximate GCD of two floats by Euclid's algorithm, tracking the rounding error of each
// remainder; none when the error swamps the remainder before it reaches ~0.
template <class F>
std::optional<F> approx_pair_gcd(F greater, F lesser) {
  using O = Ops<F>;
  if (is_approx_zero(lesser, greater) || lesser == greater) return std::nullopt;
  const F eps = O::pow2(-int(O::kPrecision));
  struct Term {
    F value, err;
  };
  Term g{greater, O::zero()}, l{lesser, O::zero()};
  for (int iter = 0; iter < 10000; ++iter) {
    const F prev = g.value;
    const F ratio = O::round(g.value / l.value);
    g.err = g.err + (ratio * l.err + g.value * eps);
    g.value = O::abs(g.value - ratio * l.value);
    if (g.value <= prev * O::pow2(-16) || g.value <= g.err) return l.value;
    if (is_approx_zero(g.value, greater) || g.value <= g.err * O::pow2(int(kRequiredPrecisionBits))) return std::nullopt;
    std::swap(g, l);
  }
  return std::nullopt;
}

template <class F>
std::optional<FloatMultConfig<F>> config_from_base(F base) {
  using O = Ops<F>;
  return FloatMultConfig<F>{base, O::inv(base)};
}

// When most numbers are multiples of 2^k: an integer GCD of the numbers / 2^k.
template <class F>
std::optional<FloatMultConfig<F>> config_by_trailing_zeros(std::span<const F> sample) {
  using O = Ops<F>;
  using L = typename O::L;
  const int precision = int(O::kPrecision);
  auto power_of_2_divisor = [&](int exponent, unsigned tz) { return exponent - std::max(0, precision - int(tz)); };
  int k = INT_MAX;
  size_t count = 0;
  for (F x : sample) {
    const unsigned tz = O::trailing_zeros(x);
    if (!(x == O::zero()) && tz >= kInterestingTrailingZeros) {
      ++count;
      k = std::min(k, power_of_2_divisor(O::exponent(x), tz));
    }
  }
  const size_t required = std::max<size_t>(size_t(std::ceil(double(sample.size()) * kRequiredTrailingZerosShare)), kMinSample);
  if (count < required) return std::nullopt;
  std::vector<L> ints;
  const unsigned lshift = O::kBits - O::kPrecision - 1;
  for (F x : sample) {
    const int e = O::exponent(x);
    if (power_of_2_divisor(e, O::trailing_zeros(x)) >= k && int64_t(e) < int64_t(k) + int64_t(O::kBits)) {
      const unsigned rshift = unsigned(int(O::kBits) - 1 - (e - k));
      const L with_implicit = L(L(O::to_bits(x) << lshift) | kTopBit<L>);
      ints.push_back(L(with_implicit >> rshift));
    }
  }
  if (ints.size() < required) return std::nullopt;
  const auto base = candidate_int_base<L>(ints);
  const L int_base = base ? base->first : L(1);
  return config_from_base<F>(O::from_f64(double(int_base)) * O::pow2(k));
}

template <class F>
std::optional<F> approx_sample_gcd(std::span<const F> sample) {
  using O = Ops<F>;
  std::vector<F> gcds;
  for (size_t i = 0; i + 1 < sample.size(); i += 2)
    if (auto g = approx_pair_gcd(O::max(sample[i], sample[i + 1]), O::min(sample[i], sample[i + 1]))) gcds.push_back(*g);
  const size_t required = 1 + size_t(std::ceil(double(sample.size()) * kRequiredGcdPairShare));
  if (gcds.size() < required) return std::nullopt;
  std::sort(gcds.begin(), gcds.end(), [](F a, F b) { return a < b; });
  for (double percentile : {0.1, 0.3, 0.5}) {
    const F candidate = gcds[size_t(percentile * double(gcds.size()))];
    size_t similar = 0;
    for (F g : gcds) similar += O::abs_diff(g, candidate) < O::from_f64(0.01) * candidate;
    if (similar >= required) return candidate;
  }
  return std::nullopt;
}

// Adjusts the base to minimize the sampled numbers' deviations from their multiples.
template <class F>
F center_base(F base, std::span<const F> sample) {
  using O = Ops<F>;
  const F inv = O::inv(base);
  F tweak_sum = O::zero(), tweak_weight = O::zero();
  for (F x : sample) {
    const F mult = O::round(x * inv);
    const int e = O::exponent(mult);
    if (e >= 0 && e < int(O::kPrecision) && !(mult == O::zero())) {
      const F weight = O::from_f64(double(int(O::kPrecision) - e));
      tweak_sum += weight * ((mult * base - x) / mult);
      tweak_weight += weight;
    }
  }
  if (tweak_weight == O::zero()) return base;
  return base - tweak_sum / tweak_weight;
}

// 1 / integer or a power of 10 when the base is close to one.
template <class F>
FloatMultConfig<F> snap(F base) {
  using O = Ops<F>;
  const F inv = O::inv(base);
  const F round_inv = O::round(inv);
  const F decimal_inv = O::from_f64(std::pow(10.0, std::round(std::log10(O::to_f64(inv)))));
  if (!(round_inv == O::zero()) && O::abs_diff(inv, round_inv) < O::from_f64(kSnapAbsolute))
    return {O::inv(round_inv), round_inv};
  if (O::abs_diff(inv, decimal_inv) / inv < O::from_f64(kSnapDecimalRelative)) return {O::inv(decimal_inv), decimal_inv};
  return {base, inv};
}

template <class F>
std::optional<double> bits_saved_over_classic(const FloatMultConfig<F>& config, std::span<const F> sample) {
  using O = Ops<F>;
  using L = typename O::L;
  std::vector<std::pair<uint64_t, double>> per_num;
  per_num.reserve(sample.size());
  for (F x : sample) {
    const F mult = O::round(x * config.inv_base);
    const int e = O::exponent(mult);
    // Bits between consecutive multiples, roughly (a mult below 1 counts as none).
    const int inter_base_bits = e < 0 ? 0 : std::max(0, int(O::kPrecision) - e);
    const L approx = O::to_latent_ordered(mult * config.base);
    const L exact = O::to_latent_ordered(x);
    const L adj = approx > exact ? L(approx - exact) : L(exact - approx);
    // An adjustment costs about 1 + 2 log2|adj| bits (a Cauchy-like worst case).
    const int adj_bits = 1 + 2 * int(O::kBits - unsigned(std::countl_zero(adj)));
    per_num.emplace_back(uint64_t(O::int_float_to_latent(mult)), double(inter_base_bits - adj_bits));
  }
  const double saved = bits_saved_per_num(per_num);
  if (saved >= kRequiredBitsSaved) return saved;
  return std::nullopt;
}

}  // namespace

template <class F>
std::optional<FloatMultBid<F>> float_mult_bid(std::span<const F> sample) {
  using O = Ops<F>;
  auto config = config_by_trailing_zeros<F>(sample);
  if (!config) {
    const auto gcd = approx_sample_gcd<F>(sample);
    if (!gcd) return std::nullopt;
    config = snap<F>(center_base<F>(*gcd, sample));
  }
  if (!O::is_finite(config->base) || config->base == O::zero() || !O::is_finite(config->inv_base)) return std::nullopt;
  const auto saved = bits_saved_over_classic<F>(*config, sample);
  if (!saved) return std::nullopt;
  return FloatMultBid<F>{*config, *saved};
}

template std::optional<FloatMultBid<Half>> float_mult_bid(std::span<const Half>);
template std::optional<FloatMultBid<float>> float_mult_bid(std::span<const float>);
template std::optional<FloatMultBid<double>> float_mult_bid(std::span<const double>);

}  // namespace numdecode::pco
