// Pco standalone files (magic "pco!", header, chunks each with one page) and inspect output.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/bytes.hpp"
#include "pco/chunk_decoder.hpp"

namespace numdecode::pco {

struct StandaloneHeader {
  unsigned standalone_version = 0;
  std::optional<DType> uniform_dtype;  // standalone version 3+
  std::optional<uint64_t> n_hint;      // standalone version 2+
  FormatVersion format;
};

struct StandaloneChunk {
  DType dtype;
  size_t n = 0;
  size_t byte_start = 0, byte_end = 0;  // from the chunk's type byte to the end of its page
  size_t page_start = 0;                // where its chunk meta ends and its page begins
  ChunkMeta meta;
  size_t value_offset = 0;  // where its numbers start in StandaloneFile::values
  size_t value_bytes() const { return n * dtype_bytes(dtype); }
};

struct StandaloneFile {
  StandaloneHeader header;
  std::vector<StandaloneChunk> chunks;
  ByteBuffer values;  // every chunk's little-endian numbers (f16 as bits), concatenated

  const uint8_t* chunk_values(size_t i) const { return values.data() + chunks[i].value_offset; }
};

// Parses and decodes a whole standalone file. Chunk pages carry no length, so finding
// where a chunk ends requires decoding it; keep_values=false keeps only the metadata.
// max_output_bytes caps the decoded size: a valid file of constant values can expand
// a million-fold, so callers that take untrusted input choose how much they accept.
StandaloneFile read_standalone(Bytes file, bool keep_values = true, size_t max_output_bytes = SIZE_MAX);
// The same into an existing object, reusing its memory (for repeated decodes).
void read_standalone(Bytes file, StandaloneFile& into, bool keep_values = true, size_t max_output_bytes = SIZE_MAX);

// The inspect object of a file, and of one chunk's metadata (wrapped API), as JSON.
std::string inspect_json(const StandaloneFile& file);
std::string chunk_meta_json(const ChunkMeta& meta);

}  // namespace numdecode::pco
