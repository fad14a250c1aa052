#include "pco/encode/conv1_choice.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

namespace numdecode::pco {

namespace {

constexpr double kRegularization = 0.1;  // keeps the normal equations positive definite
constexpr unsigned kMaxQuantization = 31;

// Solves a x = b for symmetric positive definite a (n x n, row-major) by Cholesky.
std::vector<double> solve_spd(std::vector<double> a, std::vector<double> b, size_t n) {
  for (size_t j = 0; j < n; ++j) {
    double s = 0;
    for (size_t k = 0; k < j; ++k) s += a[j * n + k] * a[j * n + k];
    const double d = std::sqrt(std::max(a[j * n + j] - s, 0.0));
    a[j * n + j] = d;
    for (size_t i = j + 1; i < n; ++i) {
      double t = 0;
      for (size_t k = 0; k < j; ++k) t += a[i * n + k] * a[j * n + k];
      a[i * n + j] = d == 0 ? 0 : (a[i * n + j] - t) / d;
    }
  }
  for (size_t j = 0; j < n; ++j) {  // lower triangle: forward
    for (size_t k = 0; k < j; ++k) b[j] -= a[j * n + k] * b[k];
    b[j] /= a[j * n + j];
  }
  for (size_t j = n; j-- > 0;) {  // its transpose: backward
    for (size_t k = j + 1; k < n; ++k) b[j] -= a[k * n + j] * b[k];
    b[j] /= a[j * n + j];
  }
  return b;
}

}  // namespace

template <class P>
std::optional<Delta> choose_conv1(unsigned order, std::span<const P> latents) {
  const size_t n = latents.size();
  if (order == 0 || n < size_t(order) + 1) return std::nullopt;
  // Centered on the median-ish of three, as doubles: the fit is of v[i] on v[i-order..i) and 1.
  P a = latents[0], b = latents[n / 2], c = latents[n - 1];
  if (a > b) std::swap(a, b);
  if (b > c) std::swap(b, c);
  if (a > b) std::swap(a, b);
  const P center = b;
  std::vector<double> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = latents[i] < center ? -double(P(center - latents[i])) : double(P(latents[i] - center));
  const size_t m = order + 1;  // order weights, then the bias
  std::vector<double> xtx(m * m, 0.0), xty(m, 0.0);
  for (size_t i = order; i < n; ++i) {
    const double* x = &v[i - order];
    for (size_t r = 0; r < order; ++r) {
      for (size_t col = 0; col <= r; ++col) xtx[r * m + col] += x[r] * x[col];
      xtx[order * m + r] += x[r];
      xty[r] += x[r] * v[i];
    }
    xty[order] += v[i];
  }
  xtx[order * m + order] = double(n - order);
  for (size_t r = 0; r < m; ++r) {
    for (size_t col = r + 1; col < m; ++col) xtx[r * m + col] = xtx[col * m + r];
    xtx[r * m + r] += kRegularization;
  }
  const std::vector<double> beta = solve_spd(xtx, xty, m);
  double total = 0, total_abs = 0;
  for (size_t j = 0; j < order; ++j) total += beta[j], total_abs += std::fabs(beta[j]);
  if (!std::isfinite(total) || !std::isfinite(total_abs)) return std::nullopt;
  const double float_bias = (1 - total) * double(center) + beta[order];
  // Quantized weights and bias (each at most doubled by rounding) must keep the decoder's sums
  // inside its conv arithmetic of twice the latent's bits.
  const unsigned latent_bits = sizeof(P) * 8, conv_bits = 2 * latent_bits;
  const double conv_max = std::ldexp(1.0, int(conv_bits) - 1) - 1;
  const double latent_max = std::ldexp(1.0, int(latent_bits)) - 1;
  const int q = std::min<int>({int(std::floor(std::log2(conv_max / (total_abs * latent_max + std::fabs(float_bias) + 1)))) - 1,
                              int(kMaxQuantization), int(conv_bits) - 1});
  if (q < 0) return std::nullopt;
  Delta d;
  d.kind = DeltaKind::Conv1;
  d.order = order;
  d.quantization = unsigned(q);
  const double scale = std::ldexp(1.0, q);
  for (size_t j = 0; j < order; ++j) d.weights.push_back(int64_t(std::round(beta[j] * scale)));
  d.bias = int64_t(float_bias * scale);
  // The decoder's own bound: |bias| + 2^latent_bits * sum |w| < 2^(conv_bits - 1).
  using u128 = unsigned __int128;
  u128 bound = d.bias < 0 ? u128(0) - u128(static_cast<__int128>(d.bias)) : u128(d.bias);
  u128 weight_sum = 0;
  for (int64_t w : d.weights) weight_sum += w < 0 ? u128(-w) : u128(w);
  for (int64_t w : d.weights)
    if (w < INT32_MIN || w > INT32_MAX) return std::nullopt;  // weights are stored as i32
  bound += weight_sum << latent_bits;
  if (bound >= (u128(1) << (conv_bits - 1))) return std::nullopt;
  return d;
}

template std::optional<Delta> choose_conv1(unsigned, std::span<const uint8_t>);
template std::optional<Delta> choose_conv1(unsigned, std::span<const uint16_t>);
template std::optional<Delta> choose_conv1(unsigned, std::span<const uint32_t>);

}  // namespace numdecode::pco
