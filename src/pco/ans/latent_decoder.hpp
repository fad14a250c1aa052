// Reads a batch of one latent variable's latents: tANS bin symbols, then each bin's offset bits.
// Private to the page decoder (included by one translation unit, so it all inlines there).
#pragma once
#include <algorithm>
#include <array>
#include <cstring>
#include <type_traits>
#include <utility>

#include "core/bit_reader.hpp"
#include "core/bytes.hpp"
#include "pco/ans/latent_table.hpp"
#include "pco/batch.hpp"

namespace numdecode::pco {
namespace {

// Branch-free: (1 << 64) is not defined in C++, so build the mask in two steps.
inline uint64_t low_bits_mask(unsigned bits) { return ((uint64_t{1} << (bits & 63)) - 1) | (bits >= 64 ? ~uint64_t{0} : 0); }

// Reads 64 bits at any bit position, unchecked: decode_latents_into has shown that every read of
// the batch lies 8 bytes inside the data (or made a padded copy where it would not).
struct BitPeeker {
  const uint8_t* data;
  size_t len;
  explicit BitPeeker(const BitReader& reader) : data(reader.data()), len(reader.size_bytes()) {}
  [[gnu::always_inline]] uint64_t operator()(size_t bit) const {
    uint64_t w;
    std::memcpy(&w, data + (bit >> 3), 8);
    return w >> (bit & 7);
  }
  // The same read by bit address (memory address * 8 + bit position): a loop that keeps one
  // number instead of a data pointer and a position has one value fewer for V8 to keep live.
  uint64_t bit_address(size_t bit) const { return uint64_t(reinterpret_cast<uintptr_t>(data)) * 8 + bit; }
  size_t bit_at(uint64_t address) const { return size_t(address - bit_address(0)); }
  [[gnu::always_inline]] static uint64_t at_address(uint64_t address) {
    uint64_t w;
    std::memcpy(&w, reinterpret_cast<const uint8_t*>(uintptr_t(address >> 3)), 8);
    return w >> (address & 7);
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


// (1 << bits) - 1 for bits 0..56, as one load: V8 builds it in four instructions otherwise.
constexpr auto kLowMasks = [] {
  std::array<uint64_t, 57> masks{};
  for (unsigned b = 0; b < masks.size(); ++b) masks[b] = (uint64_t{1} << b) - 1;
  return masks;
}();

// A state's offset width: for latents of at most 32 bits, from the top byte of its lower entry
// (see LatentTable::lowers), so that the offset loops read one table, not two.
template <class W>
[[gnu::always_inline]] inline unsigned offset_width(uint64_t lower, const AnsNode* nodes, uint16_t state) noexcept {
  if constexpr (sizeof(W) <= 4) return unsigned(lower >> 56);
  else return nodes[state].offset_bits;
}

// Where the tANS loop leaves each symbol's state for the offset loop: in the output slot its
// value will take when a slot holds 2 bytes or more, else in a separate array (u8 latents). In
// the slots, the offset loop reads each state where it then writes the value: one pointer for
// both, where V8 kept a second one in a stack slot.
template <class Sink>
constexpr bool kStatesInSlots = sizeof(*std::declval<Sink&>().out) >= 2;

// The state of the next latent: in the sink's next slot, or at sym.
template <class Sink>
[[gnu::always_inline]] inline uint16_t next_state(const Sink& sink, const uint16_t* sym) noexcept {
  if constexpr (kStatesInSlots<Sink>) {
    uint16_t state;
    std::memcpy(&state, sink.out, sizeof state);
    return state;
  } else {
    return *sym;
  }
}

// Offsets of at most 56 / kGroup bits: kGroup of them from each 64-bit read. Returns the bit
// position after the last.
template <size_t kGroup, class W, class Peek, class Sink>
[[gnu::always_inline]] inline size_t read_offsets_grouped(const Peek& peek, size_t bit, const AnsNode* nodes,
                                                          const uint64_t* lowers, const uint16_t* syms, size_t k,
                                                          Sink& sink) noexcept {
  // A pointer and a count down, not an index and its end: one value fewer for V8 to keep live.
  const uint16_t* sym = syms;
  // The bit position as a bit address: no data pointer to keep.
  uint64_t at = peek.bit_address(bit);
  // Small groups take two reads per step: V8's loop overhead (a stack check, reloads of values
  // it spilled) comes once per step.
  constexpr size_t kReads = kGroup <= 2 ? (sizeof(W) == 8 ? 4 : 2) : 1;
  NUMDECODE_NO_VECTORIZE
  for (size_t steps = k / (kGroup * kReads); steps > 0; --steps) {
    for (size_t read = 0; read < kReads; ++read, sym += kGroup) {
      const uint64_t w = Peek::at_address(at);
      unsigned used = 0;
      for (size_t g = 0; g < kGroup; ++g) {
        const uint16_t state = next_state(sink, sym + g);
        const uint64_t lower = lowers[state];
        const unsigned ob = offset_width<W>(lower, nodes, state);
        sink(W(W(lower) + W((w >> used) & kLowMasks[ob])));
        used += ob;
      }
      at += used;
    }
  }
  bit = peek.bit_at(at);
  NUMDECODE_NO_VECTORIZE
  for (size_t rest = k % (kGroup * kReads); rest > 0; --rest, ++sym) {
    const uint16_t state = next_state(sink, sym);
    const uint64_t lower = lowers[state];
    const unsigned ob = offset_width<W>(lower, nodes, state);
    sink(W(W(lower) + W(peek(bit) & kLowMasks[ob])));
    bit += ob;
  }
  return bit;
}

// Where decoded latents go: stored, as usual, or handed to a fused delta + join (see
// PageDecoder::run). Latents reach a sink one after another, in order.
template <class W>
struct StoreLatents {
  W* out;
  [[gnu::always_inline]] void operator()(W v) noexcept { *out++ = v; }
};

// Reads k latents of one variable: tANS bin symbols (4 interleaved states), then their offsets.
// kNoOffsets (every bin has 0 offset bits): each symbol's lower goes straight to out.
template <bool kNoOffsets, class W, class Sink>
Sink decode_latents_peeking(const LatentTable& t, BitReader& r, uint32_t st[4], size_t k, Sink sink_in) noexcept {
  // A local copy: wasm passes structs in memory, and state in memory might alias the output.
  Sink sink = sink_in;
  const BitPeeker peek(r);
  size_t bit = r.bit_pos();
  if (t.n_bins == 1) {  // a single bin spends no tANS bits
    if constexpr (std::is_same_v<Sink, StoreLatents<W>>) {
      unpack_single_bin(peek, bit, t, k, sink.out);
      sink.out += k;
    } else {  // k <= kBatch
      W latents[kBatch];
      unpack_single_bin(peek, bit, t, k, latents);
      for (size_t j = 0; j < k; ++j) sink(latents[j]);
    }
    r.seek_bits(bit + k * t.max_offset_bits);
    return sink;
  }
  // First the tANS bits: each symbol's state (which names its bin) goes to the output slots or
  // syms (see kStatesInSlots).
  constexpr bool kInSlots = kStatesInSlots<Sink>;
  // Full size even when unused (states in slots): the offset loops still step a pointer over it,
  // which must stay inside it; unread, the compiler drops it.
  uint16_t syms[kNoOffsets ? 1 : kBatch];
  const AnsNode* nodes = t.nodes.get();
  const uint64_t* lowers = t.lowers.get();
  uint8_t* next_state_at = kInSlots ? reinterpret_cast<uint8_t*>(sink.out) : reinterpret_cast<uint8_t*>(syms);
  constexpr size_t kStateStride = kInSlots ? sizeof(*sink.out) : sizeof(uint16_t);
  auto emit = [&](uint32_t state) {
    if constexpr (kNoOffsets) {
      sink(W(lowers[state]));
    } else {
      const uint16_t s16 = uint16_t(state);
      std::memcpy(next_state_at, &s16, sizeof s16);
      next_state_at += kStateStride;
    }
  };
  uint32_t s0 = st[0], s1 = st[1], s2 = st[2], s3 = st[3];
  // 4 symbols use at most 4*14 bits, so one 64-bit word serves all four. Each state's next
  // value needs only its own node and the bit counts before it: short dependency chains.
  auto quad = [&]() __attribute__((always_inline)) {
    const uint64_t w = peek(bit);
    const AnsNode& n0 = nodes[s0];
    const AnsNode& n1 = nodes[s1];
    const AnsNode& n2 = nodes[s2];
    const AnsNode& n3 = nodes[s3];
    emit(s0), emit(s1), emit(s2), emit(s3);
    const unsigned c1 = n0.bits_to_read, c2 = c1 + n1.bits_to_read, c3 = c2 + n2.bits_to_read;
    bit += c3 + n3.bits_to_read;
    s0 = n0.next_base + (uint32_t(w) & n0.ans_mask);
    s1 = n1.next_base + (uint32_t(w >> c1) & n1.ans_mask);
    s2 = n2.next_base + (uint32_t(w >> c2) & n2.ans_mask);
    s3 = n3.next_base + (uint32_t(w >> c3) & n3.ans_mask);
  };
  // 64-bit latents take two quads per step: V8's loop overhead (its stack check, a counter and
  // pointers it keeps in stack slots) once per 8 symbols.
  constexpr size_t kQuadsPerStep = sizeof(W) == 8 && !kNoOffsets ? 2 : 1;
  for (size_t steps = k / (4 * kQuadsPerStep); steps > 0; --steps)
    for (size_t q = 0; q < kQuadsPerStep; ++q) quad();
  if (kQuadsPerStep == 2 && (k & 4) != 0) quad();
  uint32_t tail[4] = {s0, s1, s2, s3};
  for (size_t i = k & ~size_t{3}; i < k; ++i) {
    uint32_t& s = tail[i & 3];
    const AnsNode& nd = nodes[s];
    emit(s);
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
      const uint16_t state = next_state(sink, syms + j);
      const unsigned ob = nodes[state].offset_bits;
      uint64_t v = peek(bit) & low_bits_mask(ob < 32 ? ob : 32);
      if (ob > 32) v |= (peek(bit + 32) & low_bits_mask(ob - 32)) << 32;
      sink(W(lowers[state] + W(v)));
      bit += ob;
    }
  }
  r.seek_bits(bit);
  return sink;
}

// The most bytes one batch can read from its first byte: up to 7 bits into it, every latent from
// the widest bin (14 tANS bits and 64 offset bits), plus the 8-byte word a read loads.
constexpr size_t kMaxBatchBytes = (7 + kBatch * (kMaxAnsBits + 64) + 7) / 8 + 8;

// Copies the bytes a batch near the end of the data may read into tail, zero-filled to the worst
// case, and returns a reader over the copy at the batch's start (see decode_latents_into).
[[gnu::noinline]] inline BitReader near_end_copy(const BitReader& r, size_t worst_bytes, uint8_t* tail,
                                                 size_t& from_bit) noexcept {
  const size_t from = std::min(r.byte_pos(), r.size_bytes());
  const size_t copied = std::min(r.size_bytes() - from, worst_bytes);
  if (copied) std::memcpy(tail, r.data() + from, copied);  // an empty page may have no data pointer
  std::memset(tail + copied, 0, worst_bytes - copied);
  // A reader already past the end (an earlier variable of this batch overran; the page loop will
  // say so) starts inside the copy, and its overrun is added back after.
  const size_t start = std::min<size_t>(r.bit_pos() - from * 8, 7);
  from_bit = r.bit_pos() - start;
  BitReader near(Bytes{tail, worst_bytes});
  near.seek_bits(start);
  return near;
}

// The sink travels by value, so that its state can live in registers: by reference, the compiler
// must assume that stores to the output may change it and reload it after each one.
//
// Reads are unchecked. A batch near the end of the data, whose worst case (every latent from the
// widest bin) would read past it (real batches seldom do), is decoded by the same loops from a copy
// of the bytes left, zero-filled to the worst case: reads past the end see zeros, as checked reads'
// would, and the page loop's check_in_bounds still catches a batch that truly ran past the end.
template <class W, class Sink>
Sink decode_latents_into(const LatentTable& t, BitReader& r, uint32_t st[4], size_t k, Sink sink) noexcept {
  const unsigned max_bits_per_latent = (t.n_bins > 1 ? t.ans_size_log : 0) + t.max_offset_bits;
  // Tables hold at most 14 tANS bits and 64 offset bits, and k <= kBatch: worst_bytes <= kMaxBatchBytes.
  const size_t worst_bytes = (r.bit_pos() % 8 + uint64_t(k) * max_bits_per_latent + 7) / 8 + 8;
  alignas(8) uint8_t tail[kMaxBatchBytes];
  BitReader near;
  size_t from_bit = 0;
  const bool near_end = r.byte_pos() + worst_bytes > r.size_bytes();
  if (near_end) near = near_end_copy(r, worst_bytes, tail, from_bit);
  BitReader& src = near_end ? near : r;
  if (t.max_offset_bits == 0 && t.n_bins > 1) sink = decode_latents_peeking<true, W>(t, src, st, k, sink);
  else sink = decode_latents_peeking<false, W>(t, src, st, k, sink);
  if (near_end) r.seek_bits(from_bit + near.bit_pos());
  return sink;
}

template <class W>
void decode_latents(const LatentTable& t, BitReader& r, uint32_t st[4], size_t k, W* out) noexcept {
  decode_latents_into<W>(t, r, st, k, StoreLatents<W>{out});
}

}  // namespace
}  // namespace numdecode::pco
