#include "pco/encode/latent_var_encoder.hpp"

#include <algorithm>
#include <bit>
#include <cmath>

#include "pco/batch.hpp"
#include "pco/encode/bin_optimizer.hpp"
#include "pco/encode/histogram.hpp"

namespace numdecode::pco {

namespace {

double avg_bits(const LatentVarMeta& meta) {
  const double total = double(uint64_t{1} << meta.ans_size_log);
  double bits = 0;
  for (const Bin& b : meta.bins)
    bits += (double(meta.ans_size_log) - std::log2(double(b.weight)) + double(b.offset_bits)) * double(b.weight) / total;
  return bits;
}

}  // namespace

unsigned TrainedVar::worst_bits(size_t i) const {
  const Bin& b = meta.bins[i];
  return b.offset_bits + meta.ans_size_log - unsigned(std::bit_width(b.weight) - 1);
}

template <class L>
TrainedVar train_var(VarKey key, std::span<L> latents, unsigned unoptimized_bins_log) {
  TrainedVar t;
  t.meta.key = key;
  t.meta.latent_bits = sizeof(L) * 8;
  if (latents.empty()) return t;
  const size_t n = latents.size();
  const auto hist = histogram<L>(latents, unoptimized_bins_log);
  const unsigned n_log_ceil = n <= 1 ? 0 : unsigned(std::bit_width(n - 1));
  const unsigned size_log = std::min({unoptimized_bins_log + 2, kMaxEncoderAnsSizeLog, n_log_ceil});
  const auto bins = optimize_bins<L>(hist, size_log);
  for (const auto& b : bins) t.counts.push_back(b.count);
  const QuantizedWeights q = quantize_weights(t.counts, n, size_log);
  t.meta.ans_size_log = q.size_log;
  for (size_t i = 0; i < bins.size(); ++i) {
    t.meta.bins.push_back(Bin{q.weights[i], uint64_t(bins[i].lower), bins[i].offset_bits});
    t.lowers.push_back(uint64_t(bins[i].lower));
  }
  t.ans = AnsEncoder(q.size_log, t.meta.bins);
  t.avg_bits_per_latent = avg_bits(t.meta);
  return t;
}

TrainedVar verbatim_var(unsigned latent_bits) {
  TrainedVar t;
  t.meta.key = VarKey::Primary;
  t.meta.latent_bits = latent_bits;
  t.meta.bins = {Bin{1, 0, latent_bits}};
  t.lowers = {0};
  t.avg_bits_per_latent = latent_bits;
  return t;
}

namespace {

constexpr unsigned kCodeBitsShift = 14, kCodeBinShift = 18;

// The last bin whose lower is at most the latent (training saw every latent).
template <class L>
uint32_t bin_of(const uint64_t* lowers, size_t n_bins, L latent) {
  size_t lo = 0, len = n_bins;
  while (len > 1) {
    const size_t half = len / 2;
    if (lowers[lo + half] <= uint64_t(latent)) lo += half;
    len -= half;
  }
  return uint32_t(lo);
}

}  // namespace

template <class L>
DissectedVar dissect_page(const TrainedVar& var, std::span<const L> latents) {
  DissectedVar d;
  const uint32_t table_size = var.ans.initial_state();
  uint32_t s0 = table_size, s1 = table_size, s2 = table_size, s3 = table_size;
  if (var.meta.bins.size() > 1) {
    const size_t n = latents.size();
    d.codes.resize(n);
    uint32_t* codes = d.codes.data();
    const uint64_t* lowers = var.lowers.data();
    const size_t n_bins = var.lowers.size();
    // First each latent's bin, then the tANS pass over them.
    for (size_t i = 0; i < n; ++i) codes[i] = bin_of<L>(lowers, n_bins, latents[i]) << kCodeBinShift;
    // tANS runs backwards (the decoder reads the page forwards), state i % 4 coding latent i:
    // four independent chains, in locals.
    const AnsEncoder& ans = var.ans;
    auto step = [&](uint32_t& state, size_t i) {
      const uint32_t old = state;
      const unsigned bits = ans.encode(state, codes[i] >> kCodeBinShift);
      codes[i] |= (old & ((uint32_t{1} << bits) - 1)) | (uint32_t(bits) << kCodeBitsShift);
    };
    size_t i = n;
    for (; i % 4 != 0; --i) {  // the last, partial quad
      uint32_t* states[4] = {&s0, &s1, &s2, &s3};
      step(*states[(i - 1) & 3], i - 1);
    }
    for (; i > 0; i -= 4) {
      step(s3, i - 1);
      step(s2, i - 2);
      step(s1, i - 3);
      step(s0, i - 4);
    }
  }
  d.final_states = {s0 - table_size, s1 - table_size, s2 - table_size, s3 - table_size};
  return d;
}

template <class L>
void write_batch(const TrainedVar& var, const DissectedVar& page, std::span<const L> latents, size_t start, BitWriter& w) {
  const size_t n = latents.size();
  if (var.trivial() || start >= n) return;
  const size_t end = std::min(start + kBatch, n);
  const auto& bins = var.meta.bins;
  if (bins.size() == 1) {
    const L lower = L(bins[0].lower);
    const unsigned bits = bins[0].offset_bits;
    for (size_t i = start; i < end; ++i) w.write(L(latents[i] - lower), bits);
    return;
  }
  const uint32_t* codes = page.codes.data();
  for (size_t i = start; i < end; ++i) w.write(codes[i] & ((1u << kCodeBitsShift) - 1), (codes[i] >> kCodeBitsShift) & 15);
  for (size_t i = start; i < end; ++i) {
    const Bin& bin = bins[codes[i] >> kCodeBinShift];
    w.write(L(latents[i] - L(bin.lower)), bin.offset_bits);
  }
}

template TrainedVar train_var(VarKey, std::span<uint8_t>, unsigned);
template TrainedVar train_var(VarKey, std::span<uint16_t>, unsigned);
template TrainedVar train_var(VarKey, std::span<uint32_t>, unsigned);
template TrainedVar train_var(VarKey, std::span<uint64_t>, unsigned);
#define NUMDECODE_PAGE_WRITER(L)                                                   \
  template DissectedVar dissect_page(const TrainedVar&, std::span<const L>); \
  template void write_batch(const TrainedVar&, const DissectedVar&, std::span<const L>, size_t, BitWriter&);
NUMDECODE_PAGE_WRITER(uint8_t)
NUMDECODE_PAGE_WRITER(uint16_t)
NUMDECODE_PAGE_WRITER(uint32_t)
NUMDECODE_PAGE_WRITER(uint64_t)
#undef NUMDECODE_PAGE_WRITER

}  // namespace numdecode::pco
