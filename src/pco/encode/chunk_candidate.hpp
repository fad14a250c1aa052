// A chunk as the encoder plans it: split latents delta-encoded page by page, each latent variable
// trained, and what that will cost. Candidates are built for the chunk itself, for samples (to
// choose a delta encoding) and for the fallback, then written page by page. Header-only
// template: the chunk encoder and the delta choice both build candidates.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <span>
#include <vector>

#include "core/bit_writer.hpp"
#include "pco/batch.hpp"
#include "pco/encode/delta_encoder.hpp"
#include "pco/encode/latent_var_encoder.hpp"
#include "pco/encode/latent_vec.hpp"
#include "pco/encode/lookback_choice.hpp"
#include "pco/encode/meta_writer.hpp"
#include "pco/metadata.hpp"

namespace numdecode::pco {

// L: the numbers' latent type (and the secondary's), P: the primary latent type (u32 for Dict).
template <class L, class P>
struct ChunkCandidate {
  ChunkMeta meta;
  std::vector<size_t> page_ns, page_starts;
  size_t state_n = 0;
  LatentVec<P> primary;  // delta-encoded in place, page by page
  LatentVec<L> secondary;
  std::vector<std::vector<uint32_t>> lookbacks;  // per page (Lookback only)
  std::vector<std::vector<P>> states;            // per page: the primary's delta state
  std::vector<TrainedVar> vars;                  // parallel to meta.vars

  // The primary's stored latents of page i (those after its state).
  std::span<const P> stored_primary(size_t i) const {
    const size_t skip = std::min(state_n, page_ns[i]);
    return std::span<const P>(primary).subspan(page_starts[i] + skip, page_ns[i] - skip);
  }

  // Bytes of the chunk meta bound and its pages, estimated from the trained tables.
  double estimated_bytes() const {
    size_t bytes = chunk_meta_max_bytes(meta);
    for (size_t page = 0; page < page_ns.size(); ++page) {
      size_t body_bits = 0;
      for (const TrainedVar& v : vars)
        body_bits += size_t(std::ceil(double(stored_count(v.meta.key, page)) * v.avg_bits_per_latent));
      bytes += page_meta_bytes(meta) + (body_bits + 7) / 8;
    }
    return double(bytes);
  }

  // Whether the worst case could exceed writing every number verbatim (pcodec's size guarantee).
  bool worse_than_verbatim(size_t n) const {
    if (meta.delta.kind == DeltaKind::None && meta.mode.kind == ModeKind::Classic) return false;
    size_t worst_bits = 7 * page_ns.size();
    for (const TrainedVar& v : vars)
      for (size_t b = 0; b < v.counts.size(); ++b) worst_bits += size_t(v.counts[b]) * v.worst_bits(b);
    const size_t worst = chunk_meta_max_bytes(meta) + page_ns.size() * page_meta_bytes(meta) + (worst_bits + 7) / 8;
    ChunkMeta verbatim;
    verbatim.vars = {verbatim_var(sizeof(L) * 8).meta};
    return worst > chunk_meta_max_bytes(verbatim) + n * sizeof(L);
  }

  void write_page(size_t i, std::vector<uint8_t>& out) const {
    std::vector<DissectedVar> dissected;
    for (const TrainedVar& v : vars)
      with_latents(v.meta.key, i, [&](auto latents) { dissected.push_back(dissect_page(v, latents)); });
    BitWriter w(out);
    for (size_t v = 0; v < vars.size(); ++v) {
      const LatentVarMeta& var = meta.vars[v];
      if (var.delta_coded)
        for (P s : states[i]) w.write(uint64_t(s), var.latent_bits);
      for (uint32_t s : dissected[v].final_states) w.write(s, var.ans_size_log);
    }
    w.align();
    for (size_t start = 0; start < page_ns[i]; start += kBatch)
      for (size_t v = 0; v < vars.size(); ++v)
        with_latents(vars[v].meta.key, i, [&](auto latents) { write_batch(vars[v], dissected[v], latents, start, w); });
    w.finish();
  }

 private:
  // Calls fn with the stored latents of variable `key` on page i, as a span of their type.
  template <class Fn>
  void with_latents(VarKey key, size_t i, Fn fn) const {
    switch (key) {
      case VarKey::Delta: fn(std::span<const uint32_t>(lookbacks[i])); break;
      case VarKey::Primary: fn(stored_primary(i)); break;
      case VarKey::Secondary: fn(std::span<const L>(secondary).subspan(page_starts[i], page_ns[i])); break;
    }
  }

  size_t stored_count(VarKey key, size_t page) const {
    switch (key) {
      case VarKey::Delta: return lookbacks[page].size();
      case VarKey::Primary: return page_ns[page] - std::min(state_n, page_ns[page]);
      case VarKey::Secondary: return page_ns[page];
    }
    return 0;
  }
};

// Builds a candidate from split latents (primary and secondary moved in), the delta encoding to
// apply and the pages. verbatim: the fallback, one full-width bin, no training.
template <class L, class P>
ChunkCandidate<L, P> build_candidate(DType dtype, Mode mode, LatentVec<P> primary, LatentVec<L> secondary,
                                     bool has_secondary, const Delta& delta, std::vector<size_t> page_ns,
                                     unsigned unoptimized_bins_log, bool verbatim = false) {
  ChunkCandidate<L, P> c;
  c.meta.dtype = dtype;
  c.meta.mode = std::move(mode);
  c.meta.delta = delta;
  c.page_ns = std::move(page_ns);
  c.state_n = delta.state_n();
  c.primary = std::move(primary);
  c.secondary = std::move(secondary);
  size_t start = 0;
  for (size_t page_n : c.page_ns) {
    c.page_starts.push_back(start);
    std::span<P> page(c.primary.data() + start, page_n);
    switch (delta.kind) {
      case DeltaKind::None: c.states.emplace_back(); break;
      case DeltaKind::Consecutive: c.states.push_back(encode_consecutive<P>(delta.order, page)); break;
      case DeltaKind::Lookback:
        c.lookbacks.push_back(choose_lookbacks<P>(delta.window_n_log, c.state_n, page));
        c.states.push_back(encode_lookback<P>(c.state_n, c.lookbacks.back(), page));
        break;
      case DeltaKind::Conv1: c.states.push_back(encode_conv1<P>(delta, page)); break;
    }
    start += page_n;
  }

  if (verbatim) {
    c.vars.push_back(verbatim_var(sizeof(P) * 8));
    c.vars.back().counts = {uint32_t(c.primary.size())};
  } else {
    if (delta.kind == DeltaKind::Lookback) {
      std::vector<uint32_t> all;
      for (const auto& page : c.lookbacks) all.insert(all.end(), page.begin(), page.end());
      c.vars.push_back(train_var<uint32_t>(VarKey::Delta, all, unoptimized_bins_log));
    }
    LatentVec<P> stored;
    stored.reserve(c.primary.size());
    for (size_t i = 0; i < c.page_ns.size(); ++i) {
      const auto page = c.stored_primary(i);
      stored.insert(stored.end(), page.begin(), page.end());
    }
    c.vars.push_back(train_var<P>(VarKey::Primary, stored, unoptimized_bins_log));
    if (has_secondary) {
      // Secondary latents are cheaper to train coarsely (the reference's limit).
      LatentVec<L> copy = c.secondary;
      c.vars.push_back(train_var<L>(VarKey::Secondary, copy, std::min(unoptimized_bins_log, 6u)));
    }
  }
  for (TrainedVar& v : c.vars) {
    v.meta.delta_coded = v.meta.key == VarKey::Primary && delta.kind != DeltaKind::None;
    c.meta.vars.push_back(v.meta);
  }
  return c;
}

}  // namespace numdecode::pco
