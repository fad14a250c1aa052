// ALP pages (Apache Parquet ALP encoding proposal), f32 and f64.
//
// Two page layouts, told apart by the first byte:
//   draft  (first byte 1): version u8 = 1, mode u8, integer_encoding u8, log_vector_size u8, num_elements u32
//   merged (first byte 0): mode u8, integer_encoding u8, log_vector_size u8, num_elements i32
// then, in both: offsets[num_vectors] u32 (counted from the start of the offset array), and per vector
// AlpInfo (exponent, factor, num_exceptions u16) | ForInfo (frame_of_reference, bit_width) |
// packed deltas (LSB-first, bit_width bits each) | exception positions u16 | exception values.
// Value = (T)(int)(delta + FOR) * 10^factor * 10^-exponent, in T, left to right; exceptions patched raw.
//
// Every field is validated before use; bad input throws DecodeError naming the vector and field.
#pragma once
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "alp/alp_constants.hpp"
#include "core/bytes.hpp"

namespace numdecode::alp {

// Decoded values; new elements are left uninitialised (the decoder writes every one).
template <class T>
using ValueVector = std::vector<T, DefaultInitAllocator<T>>;

enum class Layout : uint8_t { kDraft, kMerged };
const char* layout_name(Layout layout);  // "draft" | "merged"

// Which kernel decodes the packed integers (tests compare the two; kAuto is SIMD when built with it).
enum class Kernel : uint8_t { kAuto, kScalar };

struct PageHeader {
  Layout layout = Layout::kDraft;
  unsigned header_bytes = 8;         // 8 (draft) or 7 (merged)
  unsigned version = 1;              // draft only; 0 for merged pages (no version field)
  unsigned compression_mode = 0;
  unsigned integer_encoding = 0;
  unsigned log_vector_size = kDefaultLogVectorSize;
  uint32_t num_elements = 0;
  uint32_t vector_size = 1u << kDefaultLogVectorSize;
  uint32_t num_vectors = 0;
};

struct VectorInfo {
  uint32_t index = 0;
  uint64_t first_value = 0;     // index of this vector's first value in the page
  uint32_t num_values = 0;
  size_t offset = 0;            // page byte where the vector's AlpInfo starts
  size_t bytes = 0;             // AlpInfo + ForInfo + packed + exception positions + values
  unsigned exponent = 0;
  unsigned factor = 0;
  unsigned num_exceptions = 0;
  uint64_t frame_of_reference = 0;  // raw unsigned field (u32 for f32)
  unsigned bit_width = 0;
  size_t packed_offset = 0;     // page byte offsets of the three data sections
  size_t positions_offset = 0;
  size_t exceptions_offset = 0;
};

// A validated view of one page. Construction checks the header and that the offset array fits;
// each vector is checked (offset, metadata, sizes, exception positions) when it is first used,
// so decode_vector(k) costs O(vector) whatever k is.
template <class T>
class PageReader {
 public:
  explicit PageReader(Bytes page);

  const PageHeader& header() const { return header_; }
  size_t size() const { return header_.num_elements; }
  size_t num_vectors() const { return header_.num_vectors; }

  // Vector k's metadata after full validation (throws DecodeError if vector k is malformed).
  VectorInfo vector_info(size_t k) const;

  // Writes vector k's num_values values to out.
  void decode_vector_into(size_t k, T* out, Kernel kernel = Kernel::kAuto) const;
  ValueVector<T> decode_vector(size_t k, Kernel kernel = Kernel::kAuto) const;

  // Values [start, end) of the page, decoding only the vectors that overlap the range.
  ValueVector<T> decode_range(size_t start, size_t end, Kernel kernel = Kernel::kAuto) const;
  // The same into out (room for end - start values). Every overlapping vector is validated
  // before anything is written.
  void decode_range_into(size_t start, size_t end, T* out, Kernel kernel = Kernel::kAuto) const;
  // Checks every vector that [start, end) touches, as decode_range_into does before writing, and
  // stores nothing: the check before a range is decoded piece by piece (decode_range_streaming)
  // into memory the caller keeps, so that a bad vector in a later piece throws before the first
  // piece is written there.
  void check_range(size_t start, size_t end) const;
  // Every value. All vectors are validated before the output is allocated.
  ValueVector<T> decode_all(Kernel kernel = Kernel::kAuto) const;
  // The same as decode_range_into for memory the caller discards when this throws (the wasm
  // binding's fresh buffer): each vector is checked just before it is decoded, while its bytes
  // are in cache, so a bad vector throws after the earlier ones were written.
  void decode_range_streaming(size_t start, size_t end, T* out, Kernel kernel = Kernel::kAuto) const;

 private:
  // Vector k's metadata, checked except for its exception positions (decode_checked_into checks
  // those as it patches).
  VectorInfo vector_layout(size_t k) const;
  void decode_checked_into(const VectorInfo& info, T* out, Kernel kernel) const;
  // Throws unless [start, end) lies inside the page.
  void check_bounds(size_t start, size_t end) const;
  // The validated metadata of every vector that [start, end) touches (throws on a bad range or vector).
  std::vector<VectorInfo> infos_for_range(size_t start, size_t end) const;
  void write_range(const std::vector<VectorInfo>& infos, size_t start, size_t end, T* out, Kernel kernel) const;

  Bytes page_;
  PageHeader header_;
  size_t offsets_start_ = 0;  // page byte of offsets[0]; vector offsets count from here
};

// Convenience wrappers.
ValueVector<float> decode_f32(Bytes page, Kernel kernel = Kernel::kAuto);
ValueVector<double> decode_f64(Bytes page, Kernel kernel = Kernel::kAuto);

struct EncodeOptions {
  Layout layout = Layout::kDraft;
  unsigned log_vector_size = kDefaultLogVectorSize;  // 3..15
  // Force one (exponent, factor) for every vector instead of sampling (tests, tuning).
  bool force_exponent_factor = false;
  unsigned exponent = 0;
  unsigned factor = 0;
};

// Encodes values as one ALP page that PageReader<T> reads back bit-exactly.
template <class T>
std::vector<uint8_t> encode(std::span<const T> values, const EncodeOptions& options = {});

}  // namespace numdecode::alp
