// The modes' joins: a batch of primary (and secondary) latents to numbers. Classic, Dict,
// IntMult and FloatQuant here; FloatMult in float_mult.hpp.
#pragma once
#include <cstddef>
#include <cstdint>

#include "pco/batch.hpp"
#include "pco/metadata.hpp"
#include "pco/mode/float_mult.hpp"
#include "pco/numbers.hpp"

namespace numdecode::pco {

// Maps of the fused order-1 path (delta/prefix_sum.hpp), by latent width only (see
// PageDecoder::decode_joined for signed numbers).
struct SumsAsIs {
  template <class W>
  W operator()(W v) const noexcept { return v; }
};
struct FloatClassicSums {
  template <class L>
  L operator()(L v) const noexcept { return from_latent_ordered<L, NumKind::Float>(v); }
};
template <class L>
struct IntMultSums {
  L base, s0;
  L operator()(L v) const noexcept { return L(Wide<L>(v) * base + s0); }
};

// L: the number's latent type, K its kind, P the primary latent type (u32 for Dict).
template <class L, NumKind K, class P>
struct Join {
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
        if constexpr (K == NumKind::Float && sizeof(L) >= 2) FloatMult<L, P>::join(m.mode.base, p, s, b, out);
        break;
    }
  }
};

}  // namespace numdecode::pco
