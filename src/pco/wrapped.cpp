#include "pco/wrapped.hpp"

namespace numdecode::pco {

// A wrapped page or chunk meta is at most 2^24 numbers' worth in practice, but a container
// may claim any n: refuse counts no page could hold, before allocating for them.
constexpr size_t kMaxPageN = size_t{1} << 31;

FormatVersion read_wrapped_header(Bytes header) {
  BitReader r(header);
  return read_header(r);
}

ChunkDecoder read_wrapped_chunk(Bytes meta, DType dtype, FormatVersion version) {
  BitReader r(meta);
  return ChunkDecoder(read_chunk_meta(r, dtype, version));
}

ByteBuffer decode_wrapped_page(const ChunkDecoder& chunk, Bytes page, size_t n) {
  if (n > kMaxPageN) fail("page n = ", n, " exceeds the largest supported page of ", kMaxPageN, " numbers");
  BitReader r(page);
  ByteBuffer out;
  chunk.decode_page(r, n, out);
  return out;
}

}  // namespace numdecode::pco
