// Delta decoding of one latent variable within one page (consecutive, lookback, conv1).
// Private to the page decoder (included by one translation unit).
#pragma once
#include <algorithm>
#include <cstdint>
#include <vector>

#include "pco/batch.hpp"
#include "pco/metadata.hpp"

namespace numdecode::pco {
namespace {

// Delta decoding of one latent variable within one page; state is per page.
template <class W>
class DeltaDecoder {
 public:
  DeltaDecoder(const Delta& d, std::vector<W> state, size_t n) : d_(d), state_n_(state.size()) {
    switch (d.kind) {
      case DeltaKind::Consecutive: state_ = std::move(state); break;
      case DeltaKind::Lookback: {
        window_n_ = size_t{1} << d.window_n_log;
        // Lookbacks reaching before the page read 0; a window larger than the page
        // needs no more buffer than the page itself (never allocate for a claim alone).
        eff_window_ = std::min(window_n_, n + state_n_);
        buf_.assign(2 * std::max(eff_window_, kBatch), W(0));
        std::copy(state.begin(), state.end(), buf_.begin() + (eff_window_ - state_n_));
        pos_ = eff_window_;
        break;
      }
      case DeltaKind::Conv1:
        state_ = std::move(state);
        conv_.resize(state_n_ + kBatch);  // allocated here so that apply() cannot throw
        break;
      default: break;
    }
  }

  size_t window_n() const noexcept { return window_n_; }
  // Consecutive deltas: the running sum of each level (0: the value itself, 1: its first
  // difference, ...), for the sums fused into latent decoding (prefix_sum.hpp).
  W& consecutive_sum(size_t level) noexcept { return state_[level]; }

  // d[0..b) holds the batch's deltas (entries past those read are junk that never
  // reaches the output). Writes b decoded latents to out. Lookbacks are checked by the
  // caller (check_lookbacks): apply() cannot throw, which keeps the wasm build's per-batch
  // call free of the JS exception trampoline. Deltas arrive un-centered (LatentTable::lowers
  // include the centering).
  void apply(W* d, size_t b, const uint32_t* lookbacks, W* out) noexcept {
    if (d_.kind == DeltaKind::Consecutive && d_.order == 1) {
      // The common case in one pass: prefix-sum straight into the output.
      W m = state_[0];
      for (size_t i = 0; i < b; ++i) {
        out[i] = m;
        m = W(m + d[i]);
      }
      state_[0] = m;
      return;
    }
    if (d_.kind == DeltaKind::Consecutive && d_.order == 2) {
      // Both levels in one pass (level 1's sums feed level 0's as they come), into the output.
      W m0 = state_[0], m1 = state_[1];
      for (size_t i = 0; i < b; ++i) {
        out[i] = m0;
        m0 = W(m0 + m1);
        m1 = W(m1 + d[i]);
      }
      state_[0] = m0;
      state_[1] = m1;
      return;
    }
    switch (d_.kind) {
      case DeltaKind::Consecutive:
        for (size_t lvl = d_.order; lvl-- > 0;) {
          W m = state_[lvl];
          for (size_t i = 0; i < b; ++i) {
            W next = W(m + d[i]);
            d[i] = m;
            m = next;
          }
          state_[lvl] = m;
        }
        std::copy_n(d, b, out);
        break;
      case DeltaKind::Lookback: apply_lookback(d, b, lookbacks, out); break;
      case DeltaKind::Conv1: apply_conv1(d, b, out); break;
      default: std::copy_n(d, b, out);
    }
  }

 private:
  void apply_lookback(const W* d, size_t b, const uint32_t* lookbacks, W* out) noexcept {
    if (pos_ + b > buf_.size()) {
      // Keep only the window that later lookbacks can reach.
      std::copy(buf_.begin() + (pos_ - eff_window_), buf_.begin() + pos_, buf_.begin());
      pos_ = eff_window_;
    }
    W* buf = buf_.data();
    for (size_t i = 0; i < b; ++i) {
      uint32_t lb = lookbacks[i];
      size_t at = pos_ + i;
      W prev = lb <= at ? buf[at - lb] : W(0);
      buf[at] = W(d[i] + prev);
    }
    std::copy_n(buf + pos_ - state_n_, b, out);
    pos_ += b;
  }

  void apply_conv1(const W* d, size_t b, W* out) noexcept {
    const size_t order = state_n_;
    std::copy(state_.begin(), state_.end(), conv_.begin());
    std::copy_n(d, b, conv_.begin() + order);
    const int64_t* w = d_.weights.data();
    const unsigned q = d_.quantization;
    W* r = conv_.data();
    for (size_t i = order; i < order + b; ++i) {
      // Bounds checked with the chunk meta guarantee this sum cannot overflow.
      int64_t sum = d_.bias;
      for (size_t j = 0; j < order; ++j) sum += w[j] * int64_t(r[i - order + j]);
      r[i] = W(r[i] + W(uint64_t(std::max<int64_t>(sum, 0) >> q)));
    }
    std::copy_n(r, b, out);
    std::copy_n(r + b, order, state_.begin());
  }

  const Delta& d_;
  size_t state_n_;
  std::vector<W> state_;
  std::vector<W> buf_, conv_;
  size_t window_n_ = 0, eff_window_ = 0, pos_ = 0;
};

}  // namespace
}  // namespace numdecode::pco
