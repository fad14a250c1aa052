// Decodes the pages of one Pco chunk: tANS tables are built once per chunk and reused.
#pragma once
#include <cstdint>
#include <vector>

#include "core/bit_reader.hpp"
#include "pco/ans/latent_table.hpp"
#include "pco/metadata.hpp"

namespace numdecode::pco {

class ChunkDecoder {
 public:
  explicit ChunkDecoder(ChunkMeta meta);

  const ChunkMeta& meta() const { return meta_; }

  // Decodes one page of n numbers from r (positioned at the page start), appending
  // n little-endian values to out. Leaves r after the page's zero padding.
  void decode_page(BitReader& r, size_t n, ByteBuffer& out) const;
  // The same into caller memory of n * dtype_bytes bytes.
  void decode_page(BitReader& r, size_t n, uint8_t* dst) const;
  // Throws unless the remaining bits could hold a page of n numbers.
  void check_page_fits(const BitReader& r, size_t n) const;

 private:
  using PageFn = void (*)(const ChunkDecoder&, BitReader&, size_t, uint8_t*);
  ChunkMeta meta_;
  std::vector<LatentTable> tables_;  // parallel to meta_.vars
  PageFn page_fn_ = nullptr;
  template <class L, NumKind K>
  static PageFn pick_page_fn(bool dict);
  template <class L, NumKind K, class P>
  friend struct PageDecoder;
};

}  // namespace numdecode::pco
