#include "pco/encode/int_mult_choice.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "pco/encode/sampling.hpp"

namespace numdecode::pco {

namespace {

constexpr double kZeta2 = std::numbers::pi * std::numbers::pi / 6;  // sum of 1/k^2
constexpr double kRequiredBitsSaved = 0.5;

template <class L>
L gcd(L a, L b) {
  while (b != 0) {
    const L r = L(a % b);
    a = b;
    b = r;
  }
  return a;
}

template <class L>
L triple_gcd(L a, L b, L c) {
  if (a > b) std::swap(a, b);
  if (b > c) std::swap(b, c);
  if (a > b) std::swap(a, b);
  return gcd<L>(L(b - a), L(c - a));
}

// A root of f in [lb, ub] (f(lb) <= 0 <= f(ub)) by false position, nudged toward bisection.
template <class Fn>
std::optional<double> root_by_false_position(Fn f, double lb, double ub) {
  double flb = f(lb), fub = f(ub);
  if (flb > 0 || fub < 0) return std::nullopt;
  for (int iter = 0; iter < 1000 && ub - lb > 1e-4 && fub - flb > 0; ++iter) {
    const double lb_share = 0.001 + 0.998 * fub / (fub - flb);
    const double mid = lb_share * lb + (1 - lb_share) * ub;
    const double fmid = f(mid);
    if (fmid < 0) lb = mid, flb = fmid;
    else ub = mid, fub = fmid;
  }
  return (lb + ub) / 2;
}

double entropy_term(double p) { return p == 0 || p == 1 ? 0 : -p * std::log2(p); }

// Bits a base saves per number, in the worst case consistent with how often sampled triples
// share it; none unless it beats chance (a z-score of 3) and saves enough.
std::optional<double> score_triple_gcd(double gcd, size_t with_gcd, size_t total) {
  const double hits = double(with_gcd), n = double(total);
  const double natural = 1 / (kZeta2 * gcd * gcd);
  const double stdev = std::sqrt(natural * (1 - natural) / n);
  if ((hits / n - natural) / stdev < 3) return std::nullopt;
  const double hits_lcb = hits - std::sqrt(hits);
  if (hits_lcb <= 0) return std::nullopt;
  const double congruent = std::min(kZeta2 * hits_lcb / n, 1.0);
  const double others = gcd - 1;
  const double others_inv_sq = 1 / (others * others);
  auto f = [&](double p) { return std::pow(p, 3) + std::pow(1 - p, 3) * others_inv_sq - congruent; };
  const auto p = root_by_false_position(f, 1 / gcd, std::cbrt(congruent) + 2.220446049250313e-16);
  if (!p) return std::nullopt;
  const double saved = std::log2(gcd) - worst_case_categorical_entropy(*p, others);
  if (saved < kRequiredBitsSaved) return std::nullopt;
  return saved;
}

}  // namespace

double worst_case_categorical_entropy(double p, double n_others) {
  return entropy_term(p) + n_others * entropy_term((1 - p) / n_others);
}

template <class L>
std::optional<std::pair<L, double>> candidate_int_base(std::span<const L> sample) {
  std::vector<L> gcds;
  for (size_t i = 0; i + 3 <= sample.size(); i += 3) {
    const L g = triple_gcd<L>(sample[i], sample[i + 1], sample[i + 2]);
    if (g > 1) gcds.push_back(g);
  }
  std::sort(gcds.begin(), gcds.end());
  const size_t triples = sample.size() / 3;
  std::optional<std::pair<L, double>> best;
  for (size_t i = 0; i < gcds.size();) {
    size_t j = i;
    while (j < gcds.size() && gcds[j] == gcds[i]) ++j;
    const auto score = score_triple_gcd(double(gcds[i]), j - i, triples);
    if (score && (!best || *score >= best->second)) best = std::make_pair(gcds[i], *score);
    i = j;
  }
  return best;
}

template <class L>
std::optional<L> choose_int_mult_base(std::span<const L> latents, unsigned level) {
  const std::vector<size_t> idx = sample_indices(latents.size(), level);
  if (idx.size() < kMinSample) return std::nullopt;
  std::vector<L> sample;
  sample.reserve(idx.size());
  for (size_t i : idx) sample.push_back(latents[i]);
  const auto candidate = candidate_int_base<L>(sample);
  if (!candidate) return std::nullopt;
  const auto [base, saved_per_rare] = *candidate;
  std::vector<std::pair<uint64_t, double>> per_num;
  per_num.reserve(sample.size());
  for (L x : sample) per_num.emplace_back(uint64_t(x / base), saved_per_rare);
  if (bits_saved_per_num(per_num) > kRequiredBitsSaved) return base;
  return std::nullopt;
}

template std::optional<std::pair<uint8_t, double>> candidate_int_base(std::span<const uint8_t>);
template std::optional<std::pair<uint16_t, double>> candidate_int_base(std::span<const uint16_t>);
template std::optional<std::pair<uint32_t, double>> candidate_int_base(std::span<const uint32_t>);
template std::optional<std::pair<uint64_t, double>> candidate_int_base(std::span<const uint64_t>);
template std::optional<uint8_t> choose_int_mult_base(std::span<const uint8_t>, unsigned);
template std::optional<uint16_t> choose_int_mult_base(std::span<const uint16_t>, unsigned);
template std::optional<uint32_t> choose_int_mult_base(std::span<const uint32_t>, unsigned);
template std::optional<uint64_t> choose_int_mult_base(std::span<const uint64_t>, unsigned);

}  // namespace numdecode::pco
