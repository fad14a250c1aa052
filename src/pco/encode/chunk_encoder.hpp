// Encodes one chunk: mode and delta chosen (or as asked), latent variables trained, the pcodec
// fallback to verbatim numbers when the choice could cost more; then the chunk meta and each
// page written on request. Memory: the chunk's latents, a few times over.
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "core/bytes.hpp"
#include "pco/dtype.hpp"
#include "pco/encode/chunk_config.hpp"
#include "pco/metadata.hpp"

namespace numdecode::pco {

class ChunkEncoder {
 public:
  // values: n little-endian numbers of dtype (f16 as bits), 1 <= n <= 2^24. Throws
  // std::invalid_argument for a config the numbers cannot take.
  ChunkEncoder(DType dtype, Bytes values, const ChunkConfig& config);
  ~ChunkEncoder();
  ChunkEncoder(ChunkEncoder&&) noexcept;

  const ChunkMeta& meta() const;
  const std::vector<size_t>& page_ns() const;
  void write_meta(std::vector<uint8_t>& out) const;
  void write_page(size_t i, std::vector<uint8_t>& out) const;

  struct Plan;

 private:
  std::unique_ptr<Plan> plan_;
};

// bits of the histogram: more for larger chunks and higher levels.
unsigned unoptimized_bins_log(unsigned level, size_t n);

}  // namespace numdecode::pco
