// Standalone Pco files as pcodec 1.x writes them (standalone version 3, format 4.1): the header
// with the uniform number type and the count, one chunk of one page per page of the config's
// paging, and the termination byte.
#pragma once
#include <cstdint>
#include <vector>

#include "core/bytes.hpp"
#include "pco/dtype.hpp"
#include "pco/encode/chunk_config.hpp"

namespace numdecode::pco {

// values: little-endian numbers of dtype (f16 as bits); chunks of at most config.max_page_n
// (at most 2^24) numbers, or exactly config.page_ns. Throws std::invalid_argument for bad options.
std::vector<uint8_t> encode_standalone(DType dtype, Bytes values, const ChunkConfig& config);

}  // namespace numdecode::pco
