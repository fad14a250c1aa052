#include "pco/chunk_decoder.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <type_traits>

#include "core/simd.hpp"
#include "pco/numbers.hpp"

#if NUMDECODE_SIMD_SSE
#include <immintrin.h>  // AVX2, used only behind a run-time CPU check (float_mult_f64_avx2)
#endif

namespace numdecode::pco {

namespace {

constexpr size_t kBatch = 256;

#if defined(__clang__)
#define NUMDECODE_NO_VECTORIZE _Pragma("clang loop vectorize(disable) interleave(disable)")
#else
#define NUMDECODE_NO_VECTORIZE
#endif
constexpr unsigned kMaxAnsBits = 14;

// Branch-free: (1 << 64) is not defined in C++, so build the mask in two steps.
inline uint64_t low_bits_mask(unsigned bits) { return ((uint64_t{1} << (bits & 63)) - 1) | (bits >= 64 ? ~uint64_t{0} : 0); }

// Reads 64 bits at any bit position. Checked, a word that would pass the end is zero-filled;
// unchecked, the caller has shown that every read of the batch lies 8 bytes inside the data.
template <bool kChecked>
struct BitPeeker {
  const BitReader& r;
  const uint8_t* data;
  size_t len;
  explicit BitPeeker(const BitReader& reader) : r(reader), data(reader.data()), len(reader.size_bytes()) {}
  [[gnu::always_inline]] uint64_t operator()(size_t bit) const {
    size_t byte = bit >> 3;
    uint64_t w;
    if (!kChecked || __builtin_expect(byte + 8 <= len, 1)) std::memcpy(&w, data + byte, 8);
    else w = r.word_at(byte);
    return w >> (bit & 7);
  }
};

// Offsets of k latents that all share one bin (no tANS bits): a fixed-width unpack.
template <class Peek, class W>
void unpack_single_bin(const Peek& peek, size_t bit, const LatentTable& t, size_t k, W* out) noexcept {
  const W lower = W(t.single_lower);
  const unsigned width = t.max_offset_bits;
  if (width == 0) {
    std::fill_n(out, k, lower);
  } else if (width % 8 == 0 && bit % 8 == 0 && bit / 8 + k * (width / 8) + 8 <= peek.len) {
    // Whole-byte offsets at a byte boundary: plain loads, which the compiler vectorises.
    const uint8_t* src = peek.data + bit / 8;
    switch (width) {
      case 8: for (size_t i = 0; i < k; ++i) out[i] = W(lower + W(src[i])); break;
      case 16: for (size_t i = 0; i < k; ++i) out[i] = W(lower + W(load_le<uint16_t>(src + 2 * i))); break;
      case 32: for (size_t i = 0; i < k; ++i) out[i] = W(lower + W(load_le<uint32_t>(src + 4 * i))); break;
      case 64: for (size_t i = 0; i < k; ++i) out[i] = W(lower + W(load_le<uint64_t>(src + 8 * i))); break;
      default: {
        const uint64_t mask = low_bits_mask(width);
        for (size_t i = 0; i < k; ++i) out[i] = W(lower + W(load_le<uint64_t>(src + i * (width / 8)) & mask));
      }
    }
  } else if (width <= 56) {
    const uint64_t mask = low_bits_mask(width);
    for (size_t i = 0; i < k; ++i, bit += width) out[i] = W(lower + W(peek(bit) & mask));
  } else {
    const uint64_t mask = low_bits_mask(width - 32);
    for (size_t i = 0; i < k; ++i, bit += width)
      out[i] = W(lower + W((peek(bit) & 0xffffffffu) | ((peek(bit + 32) & mask) << 32)));
  }
}

// Unsigned arithmetic of at least 32 bits for L: u8/u16 operands would be promoted to int,
// whose multiplication may overflow (undefined); the result is truncated back to L anyway.
template <class L>
using Wide = std::conditional_t<(sizeof(L) < 4), uint32_t, L>;

// (1 << bits) - 1 for bits 0..56, as one load: V8 builds it in four instructions otherwise.
constexpr auto kLowMasks = [] {
  std::array<uint64_t, 57> masks{};
  for (unsigned b = 0; b < masks.size(); ++b) masks[b] = (uint64_t{1} << b) - 1;
  return masks;
}();

// Offsets of at most 56 / kGroup bits: kGroup of them from each 64-bit read. Returns the bit
// position after the last.
template <size_t kGroup, class W, class Peek, class Sink>
[[gnu::always_inline]] inline size_t read_offsets_grouped(const Peek& peek, size_t bit, const AnsNode* nodes,
                                                          const uint64_t* lowers, const uint16_t* syms, size_t k,
                                                          Sink& sink) noexcept {
  size_t j = 0;
  NUMDECODE_NO_VECTORIZE
  for (; j + kGroup <= k; j += kGroup) {
    const uint64_t w = peek(bit);
    unsigned used = 0;
    for (size_t g = 0; g < kGroup; ++g) {
      const unsigned ob = nodes[syms[j + g]].offset_bits;
      sink(j + g, W(lowers[syms[j + g]] + W((w >> used) & kLowMasks[ob])));
      used += ob;
    }
    bit += used;
  }
  NUMDECODE_NO_VECTORIZE
  for (; j < k; ++j) {
    const unsigned ob = nodes[syms[j]].offset_bits;
    sink(j, W(lowers[syms[j]] + W(peek(bit) & kLowMasks[ob])));
    bit += ob;
  }
  return bit;
}

// Where decoded latents go: stored, as usual, or handed to a fused delta + join (see
// PageDecoder::run). Latents reach a sink in order.
template <class W>
struct StoreLatents {
  W* out;
  [[gnu::always_inline]] void operator()(size_t j, W v) const noexcept { out[j] = v; }
};

// Reads k latents of one variable: tANS bin symbols (4 interleaved states), then their offsets.
// kNoOffsets (every bin has 0 offset bits): each symbol's lower goes straight to out.
template <bool kChecked, bool kNoOffsets, class W, class Sink>
Sink decode_latents_peeking(const LatentTable& t, BitReader& r, uint32_t st[4], size_t k, Sink sink_in) noexcept {
  // A local copy: wasm passes structs in memory, and state in memory might alias the output.
  Sink sink = sink_in;
  const BitPeeker<kChecked> peek(r);
  size_t bit = r.bit_pos();
  if (t.n_bins == 1) {  // a single bin spends no tANS bits
    if constexpr (std::is_same_v<Sink, StoreLatents<W>>) {
      unpack_single_bin(peek, bit, t, k, sink.out);
    } else {  // k <= kBatch
      W latents[kBatch];
      unpack_single_bin(peek, bit, t, k, latents);
      for (size_t j = 0; j < k; ++j) sink(j, latents[j]);
    }
    r.seek_bits(bit + k * t.max_offset_bits);
    return sink;
  }
  // First the tANS bits: each symbol's state (which names its bin) goes to syms.
  uint16_t syms[kNoOffsets ? 1 : kBatch];
  const AnsNode* nodes = t.nodes.data();
  const uint64_t* lowers = t.lowers.data();
  auto emit = [&](size_t at, uint32_t state) {
    if constexpr (kNoOffsets) sink(at, W(lowers[state]));
    else syms[at] = uint16_t(state);
  };
  uint32_t s0 = st[0], s1 = st[1], s2 = st[2], s3 = st[3];
  size_t i = 0;
  // 4 symbols use at most 4*14 bits, so one 64-bit word serves all four. Each state's next
  // value needs only its own node and the bit counts before it: short dependency chains.
  for (; i + 4 <= k; i += 4) {
    const uint64_t w = peek(bit);
    const AnsNode& n0 = nodes[s0];
    const AnsNode& n1 = nodes[s1];
    const AnsNode& n2 = nodes[s2];
    const AnsNode& n3 = nodes[s3];
    emit(i, s0), emit(i + 1, s1), emit(i + 2, s2), emit(i + 3, s3);
    const unsigned c1 = n0.bits_to_read, c2 = c1 + n1.bits_to_read, c3 = c2 + n2.bits_to_read;
    bit += c3 + n3.bits_to_read;
    s0 = n0.next_base + (uint32_t(w) & n0.ans_mask);
    s1 = n1.next_base + (uint32_t(w >> c1) & n1.ans_mask);
    s2 = n2.next_base + (uint32_t(w >> c2) & n2.ans_mask);
    s3 = n3.next_base + (uint32_t(w >> c3) & n3.ans_mask);
  }
  uint32_t tail[4] = {s0, s1, s2, s3};
  for (; i < k; ++i) {
    uint32_t& s = tail[i & 3];
    const AnsNode& nd = nodes[s];
    emit(i, s);
    s = nd.next_base + (uint32_t(peek(bit)) & nd.ans_mask);
    bit += nd.bits_to_read;
  }
  std::copy_n(tail, 4, st);
  if constexpr (kNoOffsets) {
    r.seek_bits(bit);
    return sink;
  }

  // Then the offsets, in symbol order, each added to its bin's lower. Narrow offsets come
  // several to one 64-bit read (a read serves 57 bits at any bit position).
  if (t.max_offset_bits <= 7) {
    bit = read_offsets_grouped<8, W>(peek, bit, nodes, lowers, syms, k, sink);
  } else if (t.max_offset_bits <= 14) {
    bit = read_offsets_grouped<4, W>(peek, bit, nodes, lowers, syms, k, sink);
  } else if (t.max_offset_bits <= 28) {
    bit = read_offsets_grouped<2, W>(peek, bit, nodes, lowers, syms, k, sink);
  } else if (t.max_offset_bits <= 56) {
    bit = read_offsets_grouped<1, W>(peek, bit, nodes, lowers, syms, k, sink);
  } else {
    NUMDECODE_NO_VECTORIZE
    for (size_t j = 0; j < k; ++j) {
      const unsigned ob = nodes[syms[j]].offset_bits;
      uint64_t v = peek(bit) & low_bits_mask(ob < 32 ? ob : 32);
      if (ob > 32) v |= (peek(bit + 32) & low_bits_mask(ob - 32)) << 32;
      sink(j, W(lowers[syms[j]] + W(v)));
      bit += ob;
    }
  }
  r.seek_bits(bit);
  return sink;
}

// Bounds checks per read only for the batches near the end of the data. The sink travels by
// value, so that its state can live in registers: by reference, the compiler must assume that
// stores to the output may change it and reload it after each one.
template <class W, class Sink>
Sink decode_latents_into(const LatentTable& t, BitReader& r, uint32_t st[4], size_t k, Sink sink) noexcept {
  const unsigned max_bits_per_latent = (t.n_bins > 1 ? t.ans_size_log : 0) + t.max_offset_bits;
  const uint64_t last_bit = r.bit_pos() + uint64_t(k) * max_bits_per_latent;
  const bool unchecked = last_bit / 8 + 8 <= r.size_bytes();
  if (t.max_offset_bits == 0 && t.n_bins > 1) {
    if (unchecked) return decode_latents_peeking<false, true, W>(t, r, st, k, sink);
    return decode_latents_peeking<true, true, W>(t, r, st, k, sink);
  }
  if (unchecked) return decode_latents_peeking<false, false, W>(t, r, st, k, sink);
  return decode_latents_peeking<true, false, W>(t, r, st, k, sink);
}

template <class W>
void decode_latents(const LatentTable& t, BitReader& r, uint32_t st[4], size_t k, W* out) noexcept {
  decode_latents_into<W>(t, r, st, k, StoreLatents<W>{out});
}

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
  // Consecutive order 1: the running value (the next latent before its delta).
  W& order1_state() noexcept { return state_[0]; }

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

#if NUMDECODE_SIMD_SSE && defined(__GNUC__)
#define NUMDECODE_AVX2_DISPATCH 1
// Native x86-64 only: the f64 FloatMult join in 256-bit lanes where the CPU has AVX2 (checked
// at run time; the build itself targets SSE4.1). The same steps as PageDecoder::float_mult_simd.
// Stops before the first vector that needs the exact scalar path and returns how many values
// it wrote; the caller finishes the batch.
bool cpu_has_avx2() {
  static const bool has = __builtin_cpu_supports("avx2");
  return has;
}

[[gnu::target("avx2")]] size_t float_mult_f64_avx2(uint64_t base_bits, const uint64_t* p, const uint64_t* s,
                                                  size_t b, uint64_t* out) noexcept {
  const __m256i top = _mm256_set1_epi64x(int64_t(kTopBit<uint64_t>));
  const __m256i low_bits = _mm256_set1_epi64x(int64_t(kTopBit<uint64_t> - 1));
  const __m256i beyond = _mm256_set1_epi64x(int64_t(~((uint64_t{1} << 52) - 1)));
  const __m256i magic = _mm256_set1_epi64x(0x4330000000000000);
  const __m256d base = _mm256_castsi256_pd(_mm256_set1_epi64x(int64_t(base_bits)));
  const __m256i base_neg = _mm256_set1_epi64x((base_bits >> 63) ? -1 : 0);
  const __m256i zero = _mm256_setzero_si256();
  size_t i = 0;
  for (; i + 4 <= b; i += 4) {
    const __m256i signed_int = _mm256_xor_si256(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + i)), top);
    const __m256i neg = _mm256_cmpgt_epi64(zero, signed_int);
    const __m256i a = _mm256_xor_si256(signed_int, neg);
    if (!_mm256_testz_si256(a, beyond)) break;
    const __m256d magnitude = _mm256_sub_pd(_mm256_castsi256_pd(_mm256_or_si256(a, magic)), _mm256_castsi256_pd(magic));
    const __m256d f = _mm256_or_pd(magnitude, _mm256_castsi256_pd(_mm256_and_si256(neg, top)));
    const __m256i prod = _mm256_castpd_si256(_mm256_mul_pd(f, base));
    const __m256i latent = _mm256_xor_si256(prod, _mm256_or_si256(_mm256_xor_si256(neg, base_neg), top));
    const __m256i t = _mm256_add_epi64(latent, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s + i)));
    const __m256i flip = _mm256_and_si256(_mm256_cmpgt_epi64(zero, t), low_bits);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + i), _mm256_xor_si256(t, flip));
  }
  return i;
}
#endif

}  // namespace

std::vector<uint32_t> spread_state_symbols(unsigned ans_size_log, const std::vector<Bin>& bins) {
  const uint32_t size = uint32_t{1} << ans_size_log;
  uint32_t stride = size * 3 / 5;
  if (stride % 2 == 0) stride += 1;  // odd stride visits every slot of a power-of-two table
  const uint32_t mask = size - 1;
  std::vector<uint32_t> symbols(size, 0);
  uint32_t step = 0;
  for (uint32_t s = 0; s < bins.size(); ++s)
    for (uint32_t w = 0; w < bins[s].weight; ++w, ++step) symbols[(stride * step) & mask] = s;
  return symbols;
}

LatentTable build_latent_table(const LatentVarMeta& var) {
  LatentTable t;
  t.ans_size_log = var.ans_size_log;
  t.n_bins = var.bins.size();
  unsigned min_offset_bits = var.bins.empty() ? 0 : 64;
  for (const Bin& b : var.bins) {
    t.max_offset_bits = std::max(t.max_offset_bits, b.offset_bits);
    min_offset_bits = std::min(min_offset_bits, b.offset_bits);
  }
  t.min_bits_per_latent = min_offset_bits;
  const uint64_t bias = var.delta_coded ? uint64_t{1} << (var.latent_bits - 1) : 0;  // delta centering
  if (t.n_bins == 1) t.single_lower = var.bins[0].lower + bias;
  if (t.n_bins <= 1) return t;
  unsigned min_ans_bits = kMaxAnsBits;
  const uint32_t size = uint32_t{1} << var.ans_size_log;
  std::vector<uint32_t> symbols = spread_state_symbols(var.ans_size_log, var.bins);
  std::vector<uint32_t> x_s(var.bins.size());
  for (size_t s = 0; s < var.bins.size(); ++s) x_s[s] = var.bins[s].weight;
  t.nodes.resize(size);
  t.lowers.resize(size);
  for (uint32_t i = 0; i < size; ++i) {
    uint32_t s = symbols[i];
    uint32_t x = x_s[s]++;
    unsigned bits = var.ans_size_log - (31 - std::countl_zero(x));
    t.nodes[i] = AnsNode{uint16_t((x << bits) - size), uint16_t((1u << bits) - 1), uint8_t(bits),
                         uint8_t(var.bins[s].offset_bits)};
    t.lowers[i] = var.bins[s].lower + bias;
    min_ans_bits = std::min(min_ans_bits, bits);
  }
  t.min_bits_per_latent += min_ans_bits;
  return t;
}

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
        else decode_var<P>(cd, r, *pvar, pi, ans[pi].data(), b, kd, p_raw, p, pdelta, lookbacks);
        if (svar && !constant_secondary) decode_var<L>(cd, r, *svar, si, ans[si].data(), b, kd, s_raw, s, sdelta, lookbacks);
        r.check_in_bounds("page body");  // before the Dict check: a short page is "insufficient data"
        if (m.mode.kind == ModeKind::Dict) check_dict_indices(p, b, m.mode.dict.size());
        join(m, p, s, b, out);
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

  // A consecutive order-1 primary: each delta goes into the running sum as it is decoded, and
  // map(sum) to out (the sums themselves, or the join of Classic/IntMult: see run()).
  template <class Out, class Map>
  struct PrefixSum {
    P m;
    Out* out;
    Map map;
    [[gnu::always_inline]] void operator()(size_t j, P d) noexcept {
      out[j] = map(m);
      m = P(m + d);
    }
  };

  template <class Out, class Map>
  static void decode_prefix_sums(const LatentTable& t, BitReader& r, uint32_t* ans, size_t kd, size_t b,
                                 DeltaDecoder<P>& delta, Out* out, Map map) noexcept {
    const auto done = decode_latents_into<P>(t, r, ans, kd, PrefixSum<Out, Map>{delta.order1_state(), out, map});
    for (size_t j = kd; j < b; ++j) out[j] = map(done.m);  // past the page's last delta
    delta.order1_state() = done.m;
  }

  // The sums to p. Not inlined into run(): V8 allocates registers worse in one function
  // holding it all.
  [[gnu::noinline]] static void decode_prefix_summed(const LatentTable& t, BitReader& r, uint32_t* ans, size_t kd,
                                                     size_t b, DeltaDecoder<P>& delta, P* p) noexcept {
    decode_prefix_sums(t, r, ans, kd, b, delta, p, [](P v) { return v; });
  }

  // Classic or IntMult joined as the sums come: secondary absent or the constant s0.
  static void decode_joined(const ChunkMeta& m, const LatentTable& t, BitReader& r, uint32_t* ans, size_t kd,
                            size_t b, DeltaDecoder<P>& delta, L s0, L* out) noexcept {
    if (m.mode.kind == ModeKind::IntMult) {
      const L base = L(m.mode.base);
      decode_prefix_sums(t, r, ans, kd, b, delta, out, [base, s0](P v) { return int_mult_one(v, base, s0); });
    } else {
      decode_prefix_sums(t, r, ans, kd, b, delta, out, [](P v) { return classic_one(v); });
    }
  }

  // One number of each simple mode, shared by join() and decode_joined().
  static L classic_one(P l) noexcept { return from_latent_ordered<L, K>(L(l)); }
  static L int_mult_one(P l0, L base, L l1) noexcept { return from_latent_ordered<L, K>(L(Wide<L>(l0) * base + l1)); }

  // Indices were checked by check_dict_indices: join cannot throw (see DeltaDecoder::apply).
  static void join(const ChunkMeta& m, const P* p, const L* s, size_t b, L* out) noexcept {
    switch (m.mode.kind) {
      case ModeKind::Classic:
        for (size_t i = 0; i < b; ++i) out[i] = classic_one(p[i]);
        break;
      case ModeKind::Dict: {
        const uint64_t* dict = m.mode.dict.data();
        for (size_t i = 0; i < b; ++i) out[i] = from_latent_ordered<L, K>(L(dict[p[i]]));
        break;
      }
      case ModeKind::IntMult: {
        const L base = L(m.mode.base);
        NUMDECODE_NO_VECTORIZE  // i64x2 multiplies are slow in V8; scalar is faster for every width
        for (size_t i = 0; i < b; ++i) out[i] = int_mult_one(p[i], base, s[i]);
        break;
      }
      case ModeKind::FloatQuant: {
        const unsigned k = m.mode.k;
        const L threshold = L(kTopBit<L> >> k);
        const L low_mask = L((L(1) << k) - 1);
        for (size_t i = 0; i < b; ++i) {
          L l0 = L(p[i]);
          L low = l0 >= threshold ? s[i] : L(low_mask - s[i]);
          out[i] = from_latent_ordered<L, K>(L(L(l0 << k) + low));
        }
        break;
      }
      case ModeKind::FloatMult:
        if constexpr (K == NumKind::Float && sizeof(L) >= 2) float_mult(m.mode.base, p, s, b, out);
        break;
    }
  }

  // int_float_from_latent(l0) * base, then an adjustment of l1 ULPs in ordered-latent space.
  static void float_mult(uint64_t base_latent, const P* p, const L* s, size_t b, L* out) noexcept {
    const L base_bits = from_latent_ordered<L, NumKind::Float>(L(base_latent));
    size_t i = 0;
#if NUMDECODE_AVX2_DISPATCH
    if constexpr (sizeof(L) == 8 && std::is_same_v<P, L>)
      if (cpu_has_avx2()) i = float_mult_f64_avx2(base_bits, p, s, b, out);
#endif
#if NUMDECODE_SIMD
    if constexpr (sizeof(L) >= 4 && std::is_same_v<P, L>) i += float_mult_simd(base_bits, p + i, s + i, b - i, out + i);
#endif
    for (; i < b; ++i) out[i] = float_mult_one(L(p[i]), s[i], base_bits);
  }

  static L float_mult_one(L l0, L l1, L base_bits) noexcept {
    constexpr unsigned bits = sizeof(L) * 8;
    constexpr unsigned mant_digits = float_precision_bits(bits) + 1;
    constexpr L top = kTopBit<L>;
    constexpr L big = L(L(1) << mant_digits);  // 2^mantissa digits: ints below are exact floats
    constexpr L quiet = L(L(1) << (mant_digits - 2));
    const bool neg = l0 < top;
    const L a = neg ? L(top - 1 - l0) : L(l0 - top);
    L f = a < big ? int_to_float_bits(a) : L(int_to_float_bits(big) + (a - big));
    if (neg) f = L(f ^ top);
    L prod;
    if (is_nan(f)) prod = L(f | quiet);  // x86/ARM propagate the NaN operand, quieted; wasm would not
    else prod = mul_bits(f, base_bits);
    return from_latent_ordered<L, NumKind::Float>(L(float_to_latent_ordered<L>(prod) + l1 + top));
  }

#if NUMDECODE_SIMD
  // The same in 128-bit lanes, branch-free, for vectors whose |int| is below 2^(mantissa bits):
  // those convert exactly (and never to NaN, as the base is finite). Other vectors go scalar.
  static size_t float_mult_simd(L base_bits, const P* p, const L* s, size_t b, L* out) noexcept {
    using namespace simd;
    constexpr bool wide = sizeof(L) == 8;
    constexpr size_t lanes = 16 / sizeof(L);
    const V top = wide ? splat64(kTopBit<uint64_t>) : splat32(kTopBit<uint32_t>);
    const V all = splat32(~0u);
    // Bits at or above the mantissa: a lane with any set takes the scalar path.
    const V beyond = wide ? splat64(~((uint64_t{1} << 52) - 1)) : splat32(~((uint32_t{1} << 24) - 1));
    const V magic = splat64(0x4330000000000000);  // 2^52: (bits(2^52) | a) - 2^52 == a for a < 2^52
    const V base = wide ? splat64(base_bits) : splat32(uint32_t(base_bits));
    // A product's sign is its factors' signs xor-ed (zeros and infinities too; no NaN here).
    const V base_neg = (base_bits >> (sizeof(L) * 8 - 1)) ? all : splat32(0);
    const V low_bits = xor_(top, all);
    auto sign_mask = [](V x) { return wide ? sign_mask64(x) : sign_mask32(x); };
    auto add = [](V x, V y) { return wide ? add64(x, y) : add32(x, y); };
    size_t i = 0;
    for (; i + lanes <= b; i += lanes) {
      const V signed_int = xor_(load(p + i), top);  // l0 - 2^(bits-1)
      const V neg = sign_mask(signed_int);
      const V a = xor_(signed_int, neg);  // |int|: top - 1 - l0 for negatives
      if (any_bits(and_(a, beyond))) {
        for (size_t j = i; j < i + lanes; ++j) out[j] = float_mult_one(L(p[j]), s[j], base_bits);
        continue;
      }
      const V magnitude = wide ? sub_f64(or_(a, magic), magic) : i32_to_f32(a);
      const V f = or_(magnitude, and_(neg, top));
      const V prod = wide ? mul_f64(f, base) : mul_f32(f, base);
      const V latent = xor_(prod, or_(xor_(neg, base_neg), top));  // float_to_latent_ordered
      // from_latent_ordered(latent + l1 + top) = t if t's top bit is clear, else t with all
      // other bits flipped, where t = latent + l1.
      const V t = add(latent, load(s + i));
      store(out + i, xor_(t, and_(sign_mask(t), low_bits)));
    }
    return i;
  }
#endif

  static bool is_nan(L f) {
    constexpr unsigned bits = sizeof(L) * 8;
    constexpr unsigned p = float_precision_bits(bits);
    constexpr L exp_mask = L(((L(1) << float_exponent_bits(bits)) - 1) << p);
    return (f & exp_mask) == exp_mask && (f & L((L(1) << p) - 1)) != 0;
  }

  // Only called with a <= 2^mantissa digits, so the signed conversions (one instruction,
  // where unsigned 64-bit ones are a branchy sequence in wasm and on x86) are exact.
  static L int_to_float_bits(L a) {
    if constexpr (sizeof(L) == 2) return f32_to_f16_bits(float(int32_t(a)));
    else if constexpr (sizeof(L) == 4) return numdecode::bit_cast<uint32_t>(float(int32_t(a)));
    else return numdecode::bit_cast<uint64_t>(double(int64_t(a)));
  }

  static L mul_bits(L x, L y) {
    if constexpr (sizeof(L) == 2) {
      // f16 x f16 is exact in f32; one rounding to f16 matches a native f16 multiply.
      return f32_to_f16_bits(f16_bits_to_f32(x) * f16_bits_to_f32(y));
    } else if constexpr (sizeof(L) == 4) {
      return numdecode::bit_cast<uint32_t>(numdecode::bit_cast<float>(x) * numdecode::bit_cast<float>(y));
    } else {
      return numdecode::bit_cast<uint64_t>(numdecode::bit_cast<double>(x) * numdecode::bit_cast<double>(y));
    }
  }
};

template <class L, NumKind K>
ChunkDecoder::PageFn ChunkDecoder::pick_page_fn(bool dict) {
  if (dict) return &PageDecoder<L, K, uint32_t>::run;
  return &PageDecoder<L, K, L>::run;
}

ChunkDecoder::ChunkDecoder(ChunkMeta meta) : meta_(std::move(meta)) {
  for (const auto& v : meta_.vars) tables_.push_back(build_latent_table(v));
  const bool dict = meta_.mode.kind == ModeKind::Dict;
  switch (meta_.dtype) {
    case DType::U8: page_fn_ = pick_page_fn<uint8_t, NumKind::Unsigned>(dict); break;
    case DType::I8: page_fn_ = pick_page_fn<uint8_t, NumKind::Signed>(dict); break;
    case DType::U16: page_fn_ = pick_page_fn<uint16_t, NumKind::Unsigned>(dict); break;
    case DType::I16: page_fn_ = pick_page_fn<uint16_t, NumKind::Signed>(dict); break;
    case DType::F16: page_fn_ = pick_page_fn<uint16_t, NumKind::Float>(dict); break;
    case DType::U32: page_fn_ = pick_page_fn<uint32_t, NumKind::Unsigned>(dict); break;
    case DType::I32: page_fn_ = pick_page_fn<uint32_t, NumKind::Signed>(dict); break;
    case DType::F32: page_fn_ = pick_page_fn<uint32_t, NumKind::Float>(dict); break;
    case DType::U64: page_fn_ = pick_page_fn<uint64_t, NumKind::Unsigned>(dict); break;
    case DType::I64: page_fn_ = pick_page_fn<uint64_t, NumKind::Signed>(dict); break;
    case DType::F64: page_fn_ = pick_page_fn<uint64_t, NumKind::Float>(dict); break;
  }
}

void ChunkDecoder::check_page_fits(const BitReader& r, size_t n) const {
  const size_t state_n = meta_.delta.state_n();
  const size_t lagged_n = n > state_n ? n - state_n : 0;
  uint64_t needed = 0;
  for (size_t v = 0; v < meta_.vars.size(); ++v) {
    const LatentVarMeta& var = meta_.vars[v];
    bool lagged = var.key == VarKey::Delta || var.delta_coded;
    needed += uint64_t(lagged ? lagged_n : n) * tables_[v].min_bits_per_latent;
  }
  if (needed > r.bits_left())
    fail("insufficient data: a page of ", n, " numbers needs at least ", needed, " bits but only ", r.bits_left(),
         " remain");
}

void ChunkDecoder::decode_page(BitReader& r, size_t n, uint8_t* dst) const {
  check_page_fits(r, n);
  page_fn_(*this, r, n, dst);
}

void ChunkDecoder::decode_page(BitReader& r, size_t n, ByteBuffer& out) const {
  check_page_fits(r, n);  // before allocating for a count that is only a claim
  const size_t at = out.size();
  out.resize(at + n * dtype_bytes(meta_.dtype));
  page_fn_(*this, r, n, out.data() + at);
}

}  // namespace numdecode::pco
