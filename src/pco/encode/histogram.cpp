#include "pco/encode/histogram.hpp"

#include <algorithm>
#include <bit>
#include <optional>

namespace numdecode::pco {

namespace {

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

  // The latents in [lb, ub], in their sorted place (everything before them is applied).
  void apply_partially_sorted(std::span<L> latents, Bound<L> lb, Bound<L> ub, unsigned bad_pivots_left) {
    while (!latents.empty()) {
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
      const L guess = pivot_guess(latents);
      // Latents below the pivot go left: the left side's range ends at pivot - 1.
      L pivot;
      Bound<L> left_ub, right_lb;
      if (guess > lb.value) {
        pivot = guess;
        left_ub = {L(guess - 1), false};
        right_lb = {guess, true};
      } else {
        pivot = L(guess + 1);
        left_ub = {guess, true};
        right_lb = {L(guess + 1), false};
      }
      const auto mid = std::partition(latents.begin(), latents.end(), [pivot](L x) { return x < pivot; });
      const size_t left_n = size_t(mid - latents.begin());
      std::span<L> left = latents.first(left_n), right = latents.subspan(left_n);
      if (std::min(left_n, right.size()) < latents.size() / 8) {
        if (bad_pivots_left == 0) {  // adversarial order: sort outright
          std::sort(latents.begin(), latents.end());
          apply_sorted(latents);
          return;
        }
        --bad_pivots_left;
      }
      // The left side's bins come first: recurse there, then go on with the right.
      apply_partially_sorted(left, lb, left_ub, bad_pivots_left);
      latents = right;
      lb = right_lb;
    }
  }

 private:
  size_t bin_at(size_t cumulative) const { return size_t((uint64_t(cumulative) << log_) / n_); }
  // How many latents bins 0..b hold when the split is exact: ceil((b + 1) n / 2^log).
  size_t cumulative_count(size_t b) const { return size_t(((uint64_t(b) + 1) * n_ + n_bins_ - 1) >> log_); }

  static L pivot_guess(std::span<const L> latents) {
    const size_t n = latents.size();
    L a = latents[0], b = latents[n / 2], c = latents[n - 1];
    if (a > b) std::swap(a, b);
    if (b > c) std::swap(b, c);
    if (a > b) std::swap(a, b);
    return b;
  }

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
};

}  // namespace

template <class L>
std::vector<HistogramBin<L>> histogram(std::span<L> latents, unsigned n_bins_log) {
  if (latents.empty()) return {};
  HistogramBuilder<L> builder(latents.size(), n_bins_log);
  const unsigned bad_pivots = unsigned(std::bit_width(latents.size() + 1));
  builder.apply_partially_sorted(latents, {L(0), false}, {L(~L(0)), false}, bad_pivots);
  return builder.take();
}

template std::vector<HistogramBin<uint8_t>> histogram(std::span<uint8_t>, unsigned);
template std::vector<HistogramBin<uint16_t>> histogram(std::span<uint16_t>, unsigned);
template std::vector<HistogramBin<uint32_t>> histogram(std::span<uint32_t>, unsigned);
template std::vector<HistogramBin<uint64_t>> histogram(std::span<uint64_t>, unsigned);

}  // namespace numdecode::pco
