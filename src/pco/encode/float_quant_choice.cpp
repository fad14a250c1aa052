#include "pco/encode/float_quant_choice.hpp"

#include <algorithm>
#include <vector>

#include "pco/encode/float_value.hpp"
#include "pco/encode/int_mult_choice.hpp"
#include "pco/encode/sampling.hpp"

namespace numdecode::pco {

namespace {

constexpr double kRequiredBitsSaved = 1.5;

}  // namespace

template <class F>
std::optional<FloatQuantBid> float_quant_bid(std::span<const F> sample) {
  using T = FloatTraits<F>;
  if (sample.empty()) return std::nullopt;
  // at_least[k]: sampled numbers with at least k trailing zero mantissa bits.
  std::vector<size_t> at_least(T::kPrecision + 1, 0);
  for (F x : sample) ++at_least[std::min(T::kPrecision, T::trailing_zeros(x))];
  for (size_t k = T::kPrecision; k-- > 0;) at_least[k] += at_least[k + 1];
  // The first local maximum of the worst-case bits saved per number with a rare primary: later
  // maxima tend to leave primaries few enough for Classic to memorize.
  unsigned best_k = 0;
  double best_saved = 0;
  const double n = double(sample.size());
  for (unsigned k = 1; k <= T::kPrecision; ++k) {
    if (at_least[k] == 0) continue;
    const double others = double((uint64_t{1} << k) - 1);
    const double saved = double(k) - worst_case_categorical_entropy(double(at_least[k]) / n, others);
    if (saved > best_saved) best_k = k, best_saved = saved;
    else break;
  }
  std::vector<std::pair<uint64_t, double>> per_num;
  per_num.reserve(sample.size());
  for (F x : sample) per_num.emplace_back(uint64_t(T::to_bits(x) >> best_k), best_saved);
  const double saved = bits_saved_per_num(per_num);
  if (best_k == 0 || !(saved > kRequiredBitsSaved)) return std::nullopt;
  return FloatQuantBid{best_k, saved};
}

template std::optional<FloatQuantBid> float_quant_bid(std::span<const Half>);
template std::optional<FloatQuantBid> float_quant_bid(std::span<const float>);
template std::optional<FloatQuantBid> float_quant_bid(std::span<const double>);

}  // namespace numdecode::pco
