#include "pco/chunk_decoder.hpp"

#include "pco/page_decoder.hpp"

namespace numdecode::pco {

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
