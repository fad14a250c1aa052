// The Pco wrapped format as its own API: a container (Parquet, Zarr, ...) stores the
// header, each chunk's metadata and each page separately, and knows dtype and page sizes.
#pragma once
#include <cstdint>
#include <vector>

#include "core/bytes.hpp"
#include "pco/chunk_decoder.hpp"

namespace numdecode::pco {

FormatVersion read_wrapped_header(Bytes header);
ChunkDecoder read_wrapped_chunk(Bytes meta, DType dtype, FormatVersion version);
// Decodes a page of n numbers to little-endian bytes.
ByteBuffer decode_wrapped_page(const ChunkDecoder& chunk, Bytes page, size_t n);

}  // namespace numdecode::pco
