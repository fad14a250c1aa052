// Writes the wrapped header and chunk metadata, the mirror of metadata.cpp's readers, and their
// sizes as the reference's encoder estimates them.
#pragma once
#include <cstddef>

#include "core/bit_writer.hpp"
#include "pco/metadata.hpp"

namespace numdecode::pco {

// Format 4.1: what pcodec 1.x writes (Dict mode needs 4.1).
constexpr unsigned kWriteFormatMajor = 4;
constexpr unsigned kWriteFormatMinor = 1;

void write_wrapped_header(BitWriter& w);
// The chunk meta, ending zero-padded at a byte boundary (w must start at one).
void write_chunk_meta(BitWriter& w, const ChunkMeta& meta);

// Bits of one latent variable's metadata, and of a page's metadata (delta states and tANS states).
size_t latent_var_meta_bits(const LatentVarMeta& var);
size_t page_meta_bytes(const ChunkMeta& meta);
// The reference's upper bound on a chunk meta: the largest mode and delta fields, then the vars.
size_t chunk_meta_max_bytes(const ChunkMeta& meta);

}  // namespace numdecode::pco
