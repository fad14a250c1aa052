#include "pco/encode/histogram.hpp"

#include <algorithm>
#include <bit>
#include <optional>

#include "core/bytes.hpp"

namespace numdecode::pco {

namespace {

// Runs this short are sorted outright: a radix pass would cost more.
constexpr size_t kSortBelow = 64;
constexpr unsigned kMaxDigitBits = 11;

// A bound on the latents of a range: tight if some latent equals it, else loose (only a limit).
template <class L>
struct Bound {
  L value;
  bool tight;
};

// Builds the bins as if the latents arrived sorted: bin b ends at the ceil((b + 1) n / 2^log)-th
// latent, except that a run of equal latents never splits (it goes whole to the bin holding its
// middle, or to the bin before when that one is still free).
template <class L>
class HistogramBuilder {
 public:
  HistogramBuilder(size_t n, unsigned n_bins_log) : n_(n), n_bins_(uint64_t{1} << n_bins_log), log_(n_bins_log) {
    out_.reserve(size_t(n_bins_));
  }

  std::vector<HistogramBin<L>> take() { return std::move(out_); }

  // The latents in [lb, ub], in their sorted place (everything before them is applied). Runs that
  // fit the bin being filled go in whole; others are split by value into up to 2^11 runs (a radix
  // pass on the top bits of their range) until each fits one bin or holds one value. scratch has
  // room for as many latents; the two swap roles at each level (no copy back).
  void apply_partially_sorted(std::span<L> latents, Bound<L> lb, Bound<L> ub, L* scratch, size_t depth = 0) {
    const size_t target = bin_at(applied_);
    const size_t end = applied_ + latents.size();
    if (end <= cumulative_count(target)) {
      add_to_open(latents, lb, ub);
      if (end == cumulative_count(target)) close_bin(target);
      return;
    }
    if (lb.value == ub.value || latents.size() == 1) {
      apply_constant_run(latents);
      return;
    }
    if (latents.size() <= kSortBelow) {
      std::sort(latents.begin(), latents.end());
      apply_sorted(latents);
      return;
    }
    if (!lb.tight || !ub.tight) {
      // The run's own range: the radix splits it evenly even when one earlier run held most of
      // a wide range (a spike of equal latents among a few far ones).
      const auto [min, max] = std::minmax_element(latents.begin(), latents.end());
      lb = {*min, true};
      ub = {*max, true};
      if (lb.value == ub.value) {
        apply_constant_run(latents);
        return;
      }
    }
    const uint64_t range = uint64_t(L(ub.value - lb.value));
    const unsigned width = unsigned(std::bit_width(range));
    // More buckets for longer runs (up to 2^11), so that most runs are split once.
    const unsigned digit = std::clamp(unsigned(std::bit_width(latents.size())) - 4, 1u, kMaxDigitBits);
    const unsigned shift = width > digit ? width - digit : 0;
    const size_t buckets = size_t(range >> shift) + 1;
    // Bucket starts, then where each bucket's next latent goes: kept per recursion depth.
    if (counters_.size() <= depth) counters_.emplace_back(2 * (size_t{1} << kMaxDigitBits) + 1);
    uint32_t* starts = counters_[depth].data();
    uint32_t* next = starts + (size_t{1} << kMaxDigitBits) + 1;
    std::fill_n(starts, buckets + 1, 0u);
    for (L x : latents) ++starts[1 + (uint64_t(L(x - lb.value)) >> shift)];
    for (size_t k = 1; k <= buckets; ++k) starts[k] += starts[k - 1];
    std::copy_n(starts, buckets, next);
    for (L x : latents) scratch[next[uint64_t(L(x - lb.value)) >> shift]++] = x;
    // The runs now lie in scratch, in order; the latents' place is the next level's scratch.
    const std::span<L> runs(scratch, latents.size());
    const uint64_t last = range >> shift;
    for (uint64_t k = 0; k <= last; ++k) {
      const size_t from = starts[k], count = starts[k + 1] - from;
      if (count == 0) continue;
      const Bound<L> run_lb = k == 0 ? lb : Bound<L>{L(lb.value + L(k << shift)), false};
      const Bound<L> run_ub = k == last ? ub : Bound<L>{L(lb.value + L(((k + 1) << shift) - 1)), false};
      apply_partially_sorted(runs.subspan(from, count), run_lb, run_ub, latents.data() + from, depth + 1);
    }
  }

 private:
  size_t bin_at(size_t cumulative) const { return size_t((uint64_t(cumulative) << log_) / n_); }
  // How many latents bins 0..b hold when the split is exact: ceil((b + 1) n / 2^log).
  size_t cumulative_count(size_t b) const { return size_t(((uint64_t(b) + 1) * n_ + n_bins_ - 1) >> log_); }

  void add_to_open(std::span<const L> latents, Bound<L> lb, Bound<L> ub) {
    if (latents.empty()) return;
    if (open_) {
      open_->upper = ub.tight ? ub.value : *std::max_element(latents.begin(), latents.end());
      open_->count += latents.size();
    } else {
      HistogramBin<L> bin;
      bin.count = latents.size();
      bin.lower = lb.tight ? lb.value : *std::min_element(latents.begin(), latents.end());
      bin.upper = ub.tight ? ub.value : *std::max_element(latents.begin(), latents.end());
      open_ = bin;
    }
    applied_ += latents.size();
  }

  bool close_bin(size_t b) {
    if (!open_) return false;
    next_free_bin_ = b + 1;
    out_.push_back(*open_);
    open_.reset();
    return true;
  }

  void apply_constant_run(std::span<const L> run) {
    const size_t end = applied_ + run.size();
    size_t b = bin_at(applied_ + run.size() / 2);
    if (b > next_free_bin_) {
      // The bin before is free: close what is open there, or else let the run take it.
      const size_t spare = b - 1;
      if (!close_bin(spare)) b = spare;
    }
    add_to_open(run, {run[0], true}, {run[0], true});
    if (end >= cumulative_count(b)) close_bin(b);
  }

  void apply_sorted(std::span<const L> latents) {
    while (!latents.empty()) {
      const size_t target = bin_at(applied_);
      const size_t to_target = cumulative_count(target) - applied_;  // >= 1
      if (to_target >= latents.size()) {
        add_to_open(latents, {latents.front(), true}, {latents.back(), true});
        if (to_target == latents.size()) close_bin(target);
        return;
      }
      // The run of latents equal to the one that ends the target bin stays whole.
      size_t l = to_target - 1, r = to_target;
      const L x = latents[l];
      while (l > 0 && latents[l - 1] == x) --l;
      while (r < latents.size() && latents[r] == x) ++r;
      if (l > 0) add_to_open(latents.first(l), {latents[0], true}, {latents[l - 1], true});
      apply_constant_run(latents.subspan(l, r - l));
      latents = latents.subspan(r);
    }
  }

  const uint64_t n_, n_bins_;
  const unsigned log_;
  size_t applied_ = 0;
  size_t next_free_bin_ = 0;
  std::optional<HistogramBin<L>> open_;
  std::vector<HistogramBin<L>> out_;
  std::vector<std::vector<uint32_t>> counters_;  // per radix level
};

}  // namespace

template <class L>
std::vector<HistogramBin<L>> histogram(std::span<L> latents, unsigned n_bins_log) {
  if (latents.empty()) return {};
  HistogramBuilder<L> builder(latents.size(), n_bins_log);
  std::vector<L, DefaultInitAllocator<L>> scratch(latents.size());
  const auto [min, max] = std::minmax_element(latents.begin(), latents.end());
  builder.apply_partially_sorted(latents, {*min, true}, {*max, true}, scratch.data());
  return builder.take();
}

template std::vector<HistogramBin<uint8_t>> histogram(std::span<uint8_t>, unsigned);
template std::vector<HistogramBin<uint16_t>> histogram(std::span<uint16_t>, unsigned);
template std::vector<HistogramBin<uint32_t>> histogram(std::span<uint32_t>, unsigned);
template std::vector<HistogramBin<uint64_t>> histogram(std::span<uint64_t>, unsigned);

}  // namespace numdecode::pco
