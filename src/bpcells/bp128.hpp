// BPCells' BP-128 bitpacking (Lemire & Boytsov's 4-lane layout) and its m1 / d1 / d1z variants.
//
// A chunk holds 128 u32 values packed with B bits (0..32) into 4*B little-endian words.
// Value n sits in lane n%4, slot n/4; each lane is an LSB-first bit stream over the words
// out[lane], out[4+lane], out[8+lane], ... so one 128-bit register row holds the same bit
// positions of all four lanes. Quirks of BPCells' writer that a reader must follow:
//   * B == 0 stores no words; the transform is still applied to zeros (m1 -> 1s, d1/d1z -> start).
//   * B == 32 stores the 128 values verbatim, WITHOUT the transform (no +1, no delta, no zigzag).
//   * d1/d1z differences are between consecutive values and restart at every chunk from starts[c].
//   * The last chunk is padded to 128 values; readers keep only the stream's real count.
#pragma once
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "core/bytes.hpp"

namespace numdecode::bpcells {

constexpr size_t kChunkValues = 128;

enum class Variant {
  Plain,  // BP-128: values as stored
  M1,     // BP-128m1: value - 1 was stored
  D1,     // BP-128d1: differences of consecutive values, prefix-summed from starts[c]
  D1Z,    // BP-128d1z: d1 followed by zigzag
};

const char* variant_name(Variant v);

// Which unpacker to run; Auto is the SIMD kernel when the build has one.
enum class Kernel { Auto, Scalar, Simd };

// True when unpack_chunk(..., Kernel::Simd) runs vector code in this build.
bool simd_kernels_available();

// Unpacks one chunk of 128 values packed with `bits` (0..32) from `in` (4*bits little-endian
// words, any alignment) and applies the variant's transform; `start` is used by D1/D1Z only.
void unpack_chunk(Variant variant, unsigned bits, const uint8_t* in, uint32_t start, uint32_t* out,
                  Kernel kernel = Kernel::Auto);

// A run of consecutive chunks of one stream, as read from the *_data / *_idx / *_starts arrays.
struct ChunkRun {
  Variant variant = Variant::Plain;
  Bytes data;                                // packed words (little-endian u32)
  std::span<const uint64_t> word_offsets;    // n+1 word offsets into data; chunk c is [w[c], w[c+1])
  Bytes starts;                              // n little-endian u32 first values (D1/D1Z only)
  uint64_t first_chunk = 0;                  // global index of the first chunk, for messages
  std::string_view name = "stream";          // "index" or "val" (or "/mat/index"): its files are name + "_data", ...
};

// Decodes values [skip, skip+count) of the run's concatenated chunks into out[0..count).
// Checks every chunk it touches (offsets non-decreasing, a whole number of rows, at most 32
// bits, inside data). If value_limit is non-zero every decoded value must be < value_limit.
void decode_chunks(const ChunkRun& run, uint64_t skip, uint64_t count, uint32_t* out,
                   uint64_t value_limit = 0, Kernel kernel = Kernel::Auto);

// Absolute word offsets from a *_idx payload (u32 values stored modulo 2^32) and its
// *_idx_offsets array (entries idx[offsets[k] .. offsets[k+1]) get k * 2^32 added).
// v1 matrices have no *_idx_offsets: pass {0, UINT64_MAX}.
std::vector<uint64_t> resolve_word_offsets(Bytes idx_payload, std::span<const uint64_t> idx_offsets,
                                           std::string_view name);

// A whole stream of `count` values: checks that *_idx has ceil(count/128)+1 entries, that
// starts has one per chunk (D1/D1Z) and that the chunks use exactly the words of *_data.
std::vector<uint32_t> decode_stream(Variant variant, Bytes data, Bytes idx_payload,
                                    std::span<const uint64_t> idx_offsets, Bytes starts, uint64_t count,
                                    std::string_view name, uint64_t value_limit = 0,
                                    Kernel kernel = Kernel::Auto);

}  // namespace numdecode::bpcells
