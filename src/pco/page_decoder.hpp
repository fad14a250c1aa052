// Decodes one page: page meta, then batches of latents through delta decoding and the mode's
// join, with fused paths for the common cases. Private to chunk_decoder.cpp (one translation
// unit, so that everything inlines there).
#pragma once
#include <algorithm>
#include <array>
#include <cstring>
#include <type_traits>
#include <vector>

#include "core/bit_reader.hpp"
#include "core/error.hpp"
#include "pco/ans/latent_decoder.hpp"
#include "pco/batch.hpp"
#include "pco/chunk_decoder.hpp"
#include "pco/delta/delta_decoder.hpp"
#include "pco/delta/prefix_sum.hpp"
#include "pco/mode/join.hpp"
#include "pco/numbers.hpp"

namespace numdecode::pco {

// One page: L is the number's latent type, K its kind, P the primary latent type (u32 for Dict).
template <class L, NumKind K, class P>
struct PageDecoder {
  static void run(const ChunkDecoder& cd, BitReader& r, size_t n, uint8_t* dst) {
    const ChunkMeta& m = cd.meta_;
    const size_t nvars = m.vars.size();
    const size_t state_n = m.delta.state_n();

    // Page meta: per variable its delta state, then 4 tANS state indices.
    std::array<std::array<uint32_t, 4>, 3> ans{};
    std::vector<P> primary_state;
    std::vector<L> secondary_state;
    for (size_t v = 0; v < nvars; ++v) {
      const LatentVarMeta& var = m.vars[v];
      if (var.delta_coded) {
        if (state_n * var.latent_bits > r.bits_left())
          fail("insufficient data: page delta state of ", state_n, " latents does not fit in the page");
        if (var.key == VarKey::Primary) read_state(r, state_n, var.latent_bits, primary_state);
        else read_state(r, state_n, var.latent_bits, secondary_state);
      }
      for (auto& s : ans[v]) s = uint32_t(r.read_unchecked(var.ans_size_log));
      r.check_in_bounds("page meta");
    }
    r.align_zero("page meta");

    const size_t n_delta_latents = n > state_n ? n - state_n : 0;
    for (size_t v = 0; v < nvars; ++v) {
      const LatentVarMeta& var = m.vars[v];
      bool lagged = var.key == VarKey::Delta || var.delta_coded;
      size_t needed = lagged ? n_delta_latents : n;
      if (needed > 0 && var.bins.empty())
        fail("corrupt page: ", var_key_name(var.key), " latent has no bins but ", needed, " latents to decode");
    }

    const LatentVarMeta* dvar = nullptr;
    const LatentVarMeta* pvar = nullptr;
    const LatentVarMeta* svar = nullptr;
    size_t di = 0, pi = 0, si = 0;
    for (size_t v = 0; v < nvars; ++v) {
      if (m.vars[v].key == VarKey::Delta) dvar = &m.vars[v], di = v;
      else if (m.vars[v].key == VarKey::Primary) pvar = &m.vars[v], pi = v;
      else svar = &m.vars[v], si = v;
    }

    DeltaDecoder<P> pdelta(m.delta, std::move(primary_state), n);
    DeltaDecoder<L> sdelta(m.delta, std::move(secondary_state), n);
    // The common delta (consecutive, order 1) on the primary runs in the offset loop: each
    // latent goes into the prefix sum as it is decoded.
    const bool order1_primary = pvar->delta_coded && m.delta.kind == DeltaKind::Consecutive && m.delta.order == 1;
    // Order 2 (smooth fields) also sums in the offset loop, into p; the join follows.
    const bool order2_primary = pvar->delta_coded && m.delta.kind == DeltaKind::Consecutive && m.delta.order == 2;
    // A secondary latent of one bin without offset bits (IntMult's usual case) is one value:
    // filled once, never decoded (it spends no bits).
    const bool constant_secondary = svar && !svar->delta_coded && cd.tables_[si].n_bins == 1 &&
                                    cd.tables_[si].max_offset_bits == 0;

    uint32_t lookbacks[kBatch];
    P p_raw[kBatch], p[kBatch];
    L s_raw[kBatch], s[kBatch], nums[kBatch];
    const L s0 = constant_secondary ? L(cd.tables_[si].single_lower) : L(0);  // Classic: unused
    if (constant_secondary) std::fill_n(s, kBatch, s0);
    // ...and with no secondary bits to read, a scalar join runs there too: primary latents go
    // from the offset loop through the prefix sum and the join to the output.
    const bool fused_latents = order1_primary && (!svar || constant_secondary) &&
                               (m.mode.kind == ModeKind::Classic || m.mode.kind == ModeKind::IntMult);
    const size_t num_bytes = sizeof(L);

    size_t remaining = n;
    while (remaining > 0) {
      const size_t b = std::min(kBatch, remaining);
      const size_t kd = remaining > state_n ? std::min(kBatch, remaining - state_n) : 0;
      if (dvar) {
        decode_latents<uint32_t>(cd.tables_[di], r, ans[di].data(), kd, lookbacks);
        check_lookbacks(lookbacks, kd, pdelta.window_n());
        std::fill(lookbacks + kd, lookbacks + b, 1u);  // junk slots: any in-window lookback
      }
      // Join straight into the output when it is aligned for L (always, unless an earlier
      // chunk of another dtype left an odd offset).
      const bool aligned = reinterpret_cast<uintptr_t>(dst) % alignof(L) == 0;
      L* out = aligned ? reinterpret_cast<L*>(dst) : nums;
      if (fused_latents) {
        decode_joined(m, cd.tables_[pi], r, ans[pi].data(), kd, b, pdelta, s0, out);
        r.check_in_bounds("page body");
      } else {
        if (order1_primary) decode_prefix_summed(cd.tables_[pi], r, ans[pi].data(), kd, b, pdelta, p);
        else if (order2_primary) decode_prefix_summed2(cd.tables_[pi], r, ans[pi].data(), kd, b, pdelta, p);
        else decode_var<P>(cd, r, *pvar, pi, ans[pi].data(), b, kd, p_raw, p, pdelta, lookbacks);
        if (svar && !constant_secondary) decode_var<L>(cd, r, *svar, si, ans[si].data(), b, kd, s_raw, s, sdelta, lookbacks);
        r.check_in_bounds("page body");  // before the Dict check: a short page is "insufficient data"
        if (m.mode.kind == ModeKind::Dict) check_dict_indices(p, b, m.mode.dict.size());
        Join<L, K, P>::join(m, p, s, b, out);
      }
      if (!aligned) std::memcpy(dst, nums, b * num_bytes);
      dst += b * num_bytes;
      remaining -= b;
    }
    r.align_zero("page body");
  }

  static void check_lookbacks(const uint32_t* lookbacks, size_t k, size_t window_n) {
    uint32_t worst = 0;
    for (size_t i = 0; i < k; ++i) worst = std::max(worst, lookbacks[i]);
    if (worst > window_n) fail("corrupt page: lookback ", worst, " exceeds the window of ", window_n);
  }

  static void check_dict_indices(const P* p, size_t b, size_t len) {
    P worst = 0;
    for (size_t i = 0; i < b; ++i) worst = std::max(worst, p[i]);
    if (worst >= len) fail("corrupt page: Dict index ", uint64_t(worst), " is past the ", len, "-value dictionary");
  }

  template <class W>
  static void read_state(BitReader& r, size_t count, unsigned bits, std::vector<W>& state) {
    state.resize(count);
    for (auto& v : state) v = W(r.read_wide_unchecked(bits));
  }

  template <class W>
  static void decode_var(const ChunkDecoder& cd, BitReader& r, const LatentVarMeta& var, size_t vi,
                         uint32_t* ans, size_t b, size_t kd, W* raw, W* dst, DeltaDecoder<W>& delta,
                         const uint32_t* lookbacks) noexcept {
    if (!var.delta_coded) {
      decode_latents<W>(cd.tables_[vi], r, ans, b, dst);
      return;
    }
    decode_latents<W>(cd.tables_[vi], r, ans, kd, raw);
    std::fill(raw + kd, raw + b, W(0));
    delta.apply(raw, b, lookbacks, dst);
  }

  // The sums to p. Not inlined into run(): V8 allocates registers worse in one function
  // holding it all.
  [[gnu::noinline]] static void decode_prefix_summed(const LatentTable& t, BitReader& r, uint32_t* ans, size_t kd,
                                                     size_t b, DeltaDecoder<P>& delta, P* p) noexcept {
    decode_prefix_sums(t, r, ans, kd, b, delta.consecutive_sum(0), p, SumsAsIs{});
  }

  [[gnu::noinline]] static void decode_prefix_summed2(const LatentTable& t, BitReader& r, uint32_t* ans, size_t kd,
                                                      size_t b, DeltaDecoder<P>& delta, P* p) noexcept {
    decode_prefix_sums2(t, r, ans, kd, b, delta.consecutive_sum(0), delta.consecutive_sum(1), p);
  }

  // Classic or IntMult joined as the sums come: secondary absent or the constant s0. Only where
  // the primary latent is the number's own (not Dict). The maps depend on the latent width
  // alone, so every dtype of one width shares one decoder: a signed number is its unsigned
  // latent plus the top bit (mod 2^bits), which goes into the running sum's start (Classic) or
  // into s0 (IntMult) instead of into each number.
  static void decode_joined(const ChunkMeta& m, const LatentTable& t, BitReader& r, uint32_t* ans, size_t kd,
                            size_t b, DeltaDecoder<P>& delta, L s0, L* out) noexcept {
    if constexpr (std::is_same_v<P, L>) {
      constexpr L shift = K == NumKind::Signed ? kTopBit<L> : L(0);
      if constexpr (K != NumKind::Float) {
        if (m.mode.kind == ModeKind::IntMult) {
          decode_prefix_sums(t, r, ans, kd, b, delta.consecutive_sum(0), out, IntMultSums<L>{L(m.mode.base), L(s0 + shift)});
          return;
        }
        L& sum = delta.consecutive_sum(0);
        sum = L(sum + shift);
        decode_prefix_sums(t, r, ans, kd, b, sum, out, SumsAsIs{});
        sum = L(sum - shift);
      } else {
        decode_prefix_sums(t, r, ans, kd, b, delta.consecutive_sum(0), out, FloatClassicSums{});
      }
    }
  }
};

}  // namespace numdecode::pco
