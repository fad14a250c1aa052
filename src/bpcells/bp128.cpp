#include "bpcells/bp128.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <utility>

#include "bpcells/file_error.hpp"
#include "core/error.hpp"
#include "core/simd.hpp"

namespace numdecode::bpcells {

const char* variant_name(Variant v) {
  switch (v) {
    case Variant::Plain: return "BP-128";
    case Variant::M1: return "BP-128m1";
    case Variant::D1: return "BP-128d1";
    case Variant::D1Z: return "BP-128d1z";
  }
  return "BP-128?";
}

bool simd_kernels_available() { return NUMDECODE_SIMD != 0; }

namespace {

// ---------------------------------------------------------------------------------------------
// Transforms shared by both kernels for the two special widths.

// B == 0: every packed value is 0, then the transform runs (BPCells unpacks zeros and transforms).
void fill_zero_width(Variant variant, uint32_t start, uint32_t* out) {
  uint32_t value = 0;
  if (variant == Variant::M1) value = 1;
  if (variant == Variant::D1 || variant == Variant::D1Z) value = start;  // all differences are 0
  std::fill(out, out + kChunkValues, value);
}

// B == 32: BPCells memcpy's the untransformed values in both directions.
void copy_raw(const uint8_t* in, uint32_t* out) {
  for (size_t i = 0; i < kChunkValues; ++i) out[i] = load_le<uint32_t>(in + 4 * i);
}

// ---------------------------------------------------------------------------------------------
// Scalar kernel: lane by lane, then the transform in value order.

template <unsigned B>
void unpack_bits_scalar(const uint8_t* in, uint32_t* out) {
  static_assert(B >= 1 && B <= 31);
  constexpr uint32_t mask = (uint32_t{1} << B) - 1;
  for (unsigned lane = 0; lane < 4; ++lane) {
    for (unsigned slot = 0; slot < 32; ++slot) {
      const unsigned pos = slot * B;
      const unsigned word = pos / 32, shift = pos % 32;
      uint32_t v = load_le<uint32_t>(in + 4 * (4 * word + lane)) >> shift;
      if (shift + B > 32) v |= load_le<uint32_t>(in + 4 * (4 * (word + 1) + lane)) << (32 - shift);
      out[4 * slot + lane] = v & mask;
    }
  }
}

void apply_transform_scalar(Variant variant, uint32_t start, uint32_t* out) {
  switch (variant) {
    case Variant::Plain: return;
    case Variant::M1:
      for (size_t i = 0; i < kChunkValues; ++i) out[i] += 1;
      return;
    case Variant::D1: {
      uint32_t acc = start;
      for (size_t i = 0; i < kChunkValues; ++i) out[i] = acc += out[i];
      return;
    }
    case Variant::D1Z: {
      uint32_t acc = start;
      for (size_t i = 0; i < kChunkValues; ++i) {
        const uint32_t z = out[i];
        out[i] = acc += (z >> 1) ^ (0u - (z & 1));
      }
      return;
    }
  }
}

using ScalarUnpack = void (*)(const uint8_t*, uint32_t*);

template <size_t... I>
constexpr std::array<ScalarUnpack, 32> make_scalar_table(std::index_sequence<I...>) {
  // Entry 0 is unused (width 0 never reaches the table).
  return {nullptr, &unpack_bits_scalar<I + 1>...};
}
constexpr auto kScalarTable = make_scalar_table(std::make_index_sequence<31>{});

void unpack_chunk_scalar(Variant variant, unsigned bits, const uint8_t* in, uint32_t start, uint32_t* out) {
  if (bits == 0) return fill_zero_width(variant, start, out);
  if (bits == 32) return copy_raw(in, out);
  kScalarTable[bits](in, out);
  apply_transform_scalar(variant, start, out);
}

// ---------------------------------------------------------------------------------------------
// SIMD kernel: one 4x32-bit register per slot, so row k of the output is x[4k..4k+3] and the
// shifts are the same for every lane. The transform runs in-register before the store.
#if NUMDECODE_SIMD

#if NUMDECODE_SIMD_SSE
using V = __m128i;
inline V load(const uint8_t* p) { return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p)); }
inline void store(uint32_t* p, V v) { _mm_storeu_si128(reinterpret_cast<__m128i*>(p), v); }
inline V splat(uint32_t x) { return _mm_set1_epi32(static_cast<int>(x)); }
template <unsigned N> inline V shr(V v) { return _mm_srli_epi32(v, N); }
template <unsigned N> inline V shl(V v) { return _mm_slli_epi32(v, N); }
inline V vand(V a, V b) { return _mm_and_si128(a, b); }
inline V vor(V a, V b) { return _mm_or_si128(a, b); }
inline V vxor(V a, V b) { return _mm_xor_si128(a, b); }
inline V vadd(V a, V b) { return _mm_add_epi32(a, b); }
inline V vsub(V a, V b) { return _mm_sub_epi32(a, b); }
inline V lanes_up1(V v, V) { return _mm_slli_si128(v, 4); }  // [0, a, b, c]
inline V lanes_up2(V v, V) { return _mm_slli_si128(v, 8); }  // [0, 0, a, b]
inline V bcast_last(V v) { return _mm_shuffle_epi32(v, 0xFF); }
inline V vmax(V a, V b) { return _mm_max_epu32(a, b); }
#else  // wasm simd128
using V = v128_t;
inline V load(const uint8_t* p) { return wasm_v128_load(p); }
inline void store(uint32_t* p, V v) { wasm_v128_store(p, v); }
inline V splat(uint32_t x) { return wasm_i32x4_splat(static_cast<int32_t>(x)); }
template <unsigned N> inline V shr(V v) { return wasm_u32x4_shr(v, N); }
template <unsigned N> inline V shl(V v) { return wasm_i32x4_shl(v, N); }
inline V vand(V a, V b) { return wasm_v128_and(a, b); }
inline V vor(V a, V b) { return wasm_v128_or(a, b); }
inline V vxor(V a, V b) { return wasm_v128_xor(a, b); }
inline V vadd(V a, V b) { return wasm_i32x4_add(a, b); }
inline V vsub(V a, V b) { return wasm_i32x4_sub(a, b); }
inline V lanes_up1(V v, V zero) { return wasm_i32x4_shuffle(zero, v, 0, 4, 5, 6); }
inline V lanes_up2(V v, V zero) { return wasm_i32x4_shuffle(zero, v, 0, 1, 4, 5); }
inline V bcast_last(V v) { return wasm_i32x4_shuffle(v, v, 3, 3, 3, 3); }
inline V vmax(V a, V b) { return wasm_u32x4_max(a, b); }
#endif

// Row `slot` of a B-bit chunk: bits [slot*B, slot*B+B) of every lane.
// The two constant vectors of a chunk (the B-bit mask and 1s), made once per chunk from a value
// the compiler cannot see, so that the 32 rows share them instead of each using a v128.const
// (measured ~10 % faster in V8 for m1 values; native code is unchanged).
volatile uint32_t g_all_ones = ~uint32_t{0};
volatile uint32_t g_zero = 0;

template <unsigned B, Variant Var>
struct RowConstants {
  V mask, one, zero;
  RowConstants() {
    const V all = splat(g_all_ones);
    mask = shr<32 - B>(all);
    one = shr<31>(all);
    // The delta variants' lane shifts and zigzag take zeros (a v128.const per use otherwise: 29 kB).
    if constexpr (Var == Variant::D1 || Var == Variant::D1Z) zero = splat(g_zero);
  }
};

template <unsigned B, unsigned Slot, Variant Var>
inline V extract_row(const uint8_t* __restrict in, const RowConstants<B, Var>& k) {
  constexpr unsigned pos = Slot * B, word = pos / 32, shift = pos % 32;
  V v = shr<shift>(load(in + 16 * word));
  if constexpr (shift + B > 32) v = vor(v, shl<32 - shift>(load(in + 16 * (word + 1))));
  // When the value ends exactly at bit 31 of a word the right shift already cleared the rest.
  if constexpr (shift + B != 32) v = vand(v, k.mask);
  return v;
}

template <Variant Var, unsigned B>
inline V transform_row(V v, V& carry, const RowConstants<B, Var>& k) {
  if constexpr (Var == Variant::Plain) {
    return v;
  } else if constexpr (Var == Variant::M1) {
    return vadd(v, k.one);
  } else {
    if constexpr (Var == Variant::D1Z) v = vxor(shr<1>(v), vsub(k.zero, vand(v, k.one)));
    // Inclusive prefix sum over the 4 lanes, then add the running total of earlier rows.
    v = vadd(v, lanes_up1(v, k.zero));
    v = vadd(v, lanes_up2(v, k.zero));
    v = vadd(v, carry);
    carry = bcast_last(v);
    return v;
  }
}

// __restrict: the output never overlaps the packed words, so each word is loaded once, not
// again after every row's store (which the compiler must otherwise assume could change it).
template <unsigned B, Variant Var, size_t... Slot>
inline void unpack_rows(const uint8_t* __restrict in, uint32_t start, uint32_t* __restrict out,
                        std::index_sequence<Slot...>) {
  V carry = splat(start);
  const RowConstants<B, Var> k;
  ((store(out + 4 * Slot, transform_row<Var>(extract_row<B, Slot>(in, k), carry, k))), ...);
}

// Never inlined: the width dispatch calls one of 31 kernels, each 1-3 kB.
template <unsigned B, Variant Var>
[[gnu::noinline]] void unpack_simd_bits(const uint8_t* __restrict in, uint32_t start, uint32_t* __restrict out) {
  unpack_rows<B, Var>(in, start, out, std::make_index_sequence<32>{});
}

using SimdUnpack = void (*)(const uint8_t*, uint32_t, uint32_t*);

template <Variant Var, size_t... I>
constexpr std::array<SimdUnpack, 32> make_simd_table(std::index_sequence<I...>) {
  return {nullptr, &unpack_simd_bits<I + 1, Var>...};
}
// D1 has no fused kernels: no matrix stream uses it (indices are d1z, values m1), so it unpacks
// as Plain and takes its prefix sums in a second pass (split_d1), which spares 31 fully unrolled
// kernels (137 kB of wasm). Its row stays empty.
constexpr std::array<std::array<SimdUnpack, 32>, 4> kSimdTable = {
    make_simd_table<Variant::Plain>(std::make_index_sequence<31>{}),
    make_simd_table<Variant::M1>(std::make_index_sequence<31>{}),
    std::array<SimdUnpack, 32>{},
    make_simd_table<Variant::D1Z>(std::make_index_sequence<31>{}),
};

// D1's second pass: the prefix sums of the 32 rows Plain left in out, still in L1 cache.
void split_d1(unsigned bits, const uint8_t* in, uint32_t start, uint32_t* out) {
  kSimdTable[static_cast<size_t>(Variant::Plain)][bits](in, 0, out);
  const RowConstants<1, Variant::D1> k;
  V carry = splat(start);
  for (size_t row = 0; row < 32; ++row) {
    uint32_t* at = out + 4 * row;
    store(at, transform_row<Variant::D1>(load(reinterpret_cast<const uint8_t*>(at)), carry, k));
  }
}

void unpack_chunk_simd(Variant variant, unsigned bits, const uint8_t* in, uint32_t start, uint32_t* out) {
  if (bits == 0) return fill_zero_width(variant, start, out);
  if (bits == 32) return copy_raw(in, out);
  if (variant == Variant::D1) return split_d1(bits, in, start, out);
  kSimdTable[static_cast<size_t>(variant)][bits](in, start, out);
}
#endif  // NUMDECODE_SIMD

// The unpacker of one variant, resolved once per run instead of once per chunk (a chunk of
// small values decodes in ~20 ns, so the dispatch through unpack_chunk showed).
struct ChunkUnpacker {
  Variant variant;
  Kernel kernel;
#if NUMDECODE_SIMD
  const std::array<SimdUnpack, 32>* simd = nullptr;
#endif
  ChunkUnpacker(Variant v, Kernel k) : variant(v), kernel(k) {
#if NUMDECODE_SIMD
    if (k != Kernel::Scalar && v != Variant::D1) simd = &kSimdTable[static_cast<size_t>(v)];
#endif
  }
  void operator()(unsigned bits, const uint8_t* in, uint32_t start, uint32_t* out) const {
#if NUMDECODE_SIMD
    if (simd != nullptr && bits != 0 && bits < 32) return (*simd)[bits](in, start, out);
#endif
    unpack_chunk(variant, bits, in, start, out, kernel);
  }
};

#if NUMDECODE_SIMD
// The two variants matrices use (d1z indices, m1 values), dispatched by a switch on the width:
// direct calls (a jump table), where the table above costs an indirect call per chunk.
template <Variant Var>
struct SimdSwitch {
  template <size_t... I>
  static bool dispatch(unsigned bits, const uint8_t* in, uint32_t start, uint32_t* out, std::index_sequence<I...>) {
    return ((bits == I + 1 && (unpack_simd_bits<I + 1, Var>(in, start, out), true)) || ...);
  }
  // Inlined into decode_loop (a jump table there): a call of its own cost ~10 % of m1 values.
  [[gnu::always_inline]] void operator()(unsigned bits, const uint8_t* in, uint32_t start, uint32_t* out) const {
    if (!dispatch(bits, in, start, out, std::make_index_sequence<31>{})) unpack_chunk(Var, bits, in, start, out);
  }
};
#endif

// The largest of n values, 0 for none (neither wasm nor SSE builds vectorize the plain loop).
uint32_t max_value(const uint32_t* values, uint64_t n) {
  uint32_t m = 0;
  uint64_t i = 0;
#if NUMDECODE_SIMD
  if (n >= 4) {
    V acc = splat(0);
    for (; i + 4 <= n; i += 4) acc = vmax(acc, load(reinterpret_cast<const uint8_t*>(values + i)));
    alignas(16) uint32_t lanes[4];
    store(lanes, acc);
    m = std::max(std::max(lanes[0], lanes[1]), std::max(lanes[2], lanes[3]));
  }
#endif
  for (; i < n; ++i) m = values[i] > m ? values[i] : m;
  return m;
}

}  // namespace

void unpack_chunk(Variant variant, unsigned bits, const uint8_t* in, uint32_t start, uint32_t* out,
                  Kernel kernel) {
  if (bits > 32) fail(variant_name(variant), " chunk: bit width ", bits, " exceeds 32");
#if NUMDECODE_SIMD
  if (kernel != Kernel::Scalar) return unpack_chunk_simd(variant, bits, in, start, out);
#else
  if (kernel == Kernel::Simd) fail("this build has no SIMD kernels");
#endif
  unpack_chunk_scalar(variant, bits, in, start, out);
}

namespace {

// The errors of decode_loop, out of line and given values, not references: fail() takes its parts
// by reference, and a value whose address is taken lives in wasm's stack memory, stored there on
// every chunk even when nothing fails.
[[gnu::noinline, gnu::cold]] void fail_chunk_words(std::string_view name, uint64_t chunk, uint64_t w0, uint64_t w1,
                                                   uint64_t data_words) {
  const uint64_t words = w1 - w0;
  const std::string idx = stream_file(name, "_idx");
  if (w1 < w0) fail_in(idx, "offsets decrease at chunk ", chunk, " (", w0, " then ", w1, ")");
  if (words % 4 != 0) fail_in(idx, "chunk ", chunk, " spans ", words, " words, not a multiple of 4");
  if (words > 4 * 32)
    fail_in(idx, "chunk ", chunk, " spans ", words, " words, more than 128 (bit width ", words / 4, " > 32)");
  fail_in(stream_file(name, "_data"), "chunk ", chunk, " needs words [", w0, ", ", w1, ") but only ", data_words,
          " words are present (truncated?)");
}

[[gnu::noinline, gnu::cold]] void fail_value(std::string_view name, const uint32_t* values, uint64_t n,
                                             uint64_t first_position, uint64_t value_limit) {
  for (uint64_t i = 0; i < n; ++i)
    if (values[i] >= value_limit)
      fail_file(ErrorKind::BadData, stream_file(name, "_data"), name, "value ", values[i], " at position ",
                first_position + i, " is out of range (must be < ", value_limit, ")");
}

// decode_loop's checks of the run it is given, out of line for the same reason (one copy for the
// three decode_loop instantiations).
[[gnu::noinline, gnu::cold]] void fail_no_offsets(std::string_view name) {
  fail_in(stream_file(name, "_idx"), "no chunk offsets given");
}

[[gnu::noinline, gnu::cold]] void fail_run(std::string_view name, uint64_t skip, uint64_t count, uint64_t first_chunk,
                                           uint64_t nchunks, uint64_t starts_given) {
  if (skip > nchunks * kChunkValues || count > nchunks * kChunkValues - skip)
    fail_file(ErrorKind::BadData, stream_file(name, "_data"), name, "values [", skip, ", ", skip + count,
              ") requested but chunks ", first_chunk, "..", first_chunk + nchunks, " hold only ",
              nchunks * kChunkValues);
  fail_in(stream_file(name, "_starts"), starts_given, " entries given for ", nchunks, " chunks");
}

template <class Unpack>
void decode_loop(const ChunkRun& run, uint64_t skip, uint64_t count, uint32_t* out, uint64_t value_limit,
                 Unpack unpack) {
  if (run.word_offsets.empty()) [[unlikely]]
    fail_no_offsets(run.name);
  const uint64_t nchunks = run.word_offsets.size() - 1;
  const bool delta = run.variant == Variant::D1 || run.variant == Variant::D1Z;
  const bool outside = skip > nchunks * kChunkValues || count > nchunks * kChunkValues - skip;
  if (outside || (delta && run.starts.size() / 4 < nchunks)) [[unlikely]]
    fail_run(run.name, skip, count, run.first_chunk, nchunks, run.starts.size() / 4);
  const uint64_t data_words = run.data.size() / 4;

  alignas(16) uint32_t tmp[kChunkValues];
  uint64_t written = 0;
  for (uint64_t c = skip / kChunkValues; written < count; ++c) {
    const uint64_t w0 = run.word_offsets[c], w1 = run.word_offsets[c + 1];
    const uint64_t words = w1 - w0;
    if (w1 < w0 || words % 4 != 0 || words > 4 * 32 || w1 > data_words) [[unlikely]]
      fail_chunk_words(run.name, run.first_chunk + c, w0, w1, data_words);
    const uint32_t start = delta ? load_le<uint32_t>(run.starts.data() + 4 * c) : 0;

    const uint64_t first = c * kChunkValues;  // run-relative index of the chunk's first value
    const uint64_t lo = std::max(skip, first) - first;
    const uint64_t hi = std::min(skip + count, first + kChunkValues) - first;
    uint32_t* dst = out + written;
    if (lo == 0 && hi == kChunkValues) {
      unpack(static_cast<unsigned>(words / 4), run.data.data() + 4 * w0, start, dst);
    } else {
      unpack(static_cast<unsigned>(words / 4), run.data.data() + 4 * w0, start, tmp);
      std::memcpy(dst, tmp + lo, (hi - lo) * sizeof(uint32_t));
    }
    // The maximum first (a loop the compiler vectorizes), the failing position only when it is bad.
    if (value_limit != 0 && max_value(dst, hi - lo) >= value_limit) [[unlikely]]
      fail_value(run.name, dst, hi - lo, first + lo + run.first_chunk * kChunkValues, value_limit);
    written += hi - lo;
  }
}

}  // namespace

void decode_chunks(const ChunkRun& run, uint64_t skip, uint64_t count, uint32_t* out, uint64_t value_limit,
                   Kernel kernel) {
#if NUMDECODE_SIMD
  if (kernel != Kernel::Scalar && run.variant == Variant::M1)
    return decode_loop(run, skip, count, out, value_limit, SimdSwitch<Variant::M1>{});
  if (kernel != Kernel::Scalar && run.variant == Variant::D1Z)
    return decode_loop(run, skip, count, out, value_limit, SimdSwitch<Variant::D1Z>{});
#endif
  decode_loop(run, skip, count, out, value_limit, ChunkUnpacker(run.variant, kernel));
}

std::vector<uint64_t> resolve_word_offsets(Bytes idx_payload, std::span<const uint64_t> idx_offsets,
                                           std::string_view name) {
  const std::string idx = stream_file(name, "_idx"), offsets_file = stream_file(name, "_idx_offsets");
  if (idx_payload.size() % 4 != 0) fail_in(idx, "payload is not a whole number of u32 values");
  const uint64_t n = idx_payload.size() / 4;
  if (idx_offsets.size() < 2)
    fail_in(offsets_file, idx_offsets.size(), " entries, need at least 2 (start and end)");
  if (idx_offsets[0] != 0) fail_in(offsets_file, "first entry is ", idx_offsets[0], ", not 0");
  for (size_t k = 1; k < idx_offsets.size(); ++k)
    if (idx_offsets[k] < idx_offsets[k - 1]) fail_in(offsets_file, "entries decrease at position ", k);
  if (idx_offsets.back() < n)
    fail_in(offsets_file, "last entry ", idx_offsets.back(), " does not cover the ", n, " entries of ", idx);
  std::vector<uint64_t> out(n);
  size_t k = 0;  // idx[i] lies in segment k: [idx_offsets[k], idx_offsets[k+1])
  for (uint64_t i = 0; i < n; ++i) {
    while (i >= idx_offsets[k + 1]) ++k;  // terminates: idx_offsets.back() >= n > i
    out[i] = load_le<uint32_t>(idx_payload.data() + 4 * i) + (uint64_t{k} << 32);
  }
  return out;
}

std::vector<uint32_t> decode_stream(Variant variant, Bytes data, Bytes idx_payload,
                                    std::span<const uint64_t> idx_offsets, Bytes starts, uint64_t count,
                                    std::string_view name, uint64_t value_limit, Kernel kernel) {
  const std::string idx = stream_file(name, "_idx"), data_file = stream_file(name, "_data");
  const uint64_t nchunks = count / kChunkValues + (count % kChunkValues != 0);
  if (idx_payload.size() / 4 != nchunks + 1)
    fail_in(idx, idx_payload.size() / 4, " entries, expected ", nchunks + 1, " for ", count, " values (", nchunks,
            " chunks of 128)");
  const bool delta = variant == Variant::D1 || variant == Variant::D1Z;
  if (delta && starts.size() / 4 != nchunks)
    fail_in(stream_file(name, "_starts"), starts.size() / 4, " entries, expected ", nchunks, " (one per chunk)");
  if (data.size() % 4 != 0) fail_in(data_file, "payload is not a whole number of u32 words");
  const std::vector<uint64_t> offsets = resolve_word_offsets(idx_payload, idx_offsets, name);
  if (offsets[0] != 0) fail_in(idx, "first entry is ", offsets[0], ", not 0");
  // Check the whole table before decoding so that a bad last entry is reported as such.
  for (uint64_t c = 0; c < nchunks; ++c) {
    if (offsets[c + 1] < offsets[c])
      fail_in(idx, "offsets decrease at chunk ", c, " (", offsets[c], " then ", offsets[c + 1], ")");
  }
  const uint64_t data_words = data.size() / 4;
  if (offsets[nchunks] > data_words)
    fail_in(idx, "chunks end at word ", offsets[nchunks], " but ", data_file, " holds only ", data_words,
            " words (truncated?)");
  if (offsets[nchunks] != data_words)
    fail_in(data_file, data_words, " words but ", idx, " accounts for ", offsets[nchunks], " (trailing data)");

  std::vector<uint32_t> out(count);
  if (count == 0) return out;
  ChunkRun run{variant, data, offsets, starts, 0, name};
  decode_chunks(run, 0, count, out.data(), value_limit, kernel);
  return out;
}

}  // namespace numdecode::bpcells
