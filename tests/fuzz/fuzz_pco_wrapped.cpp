// libFuzzer: the Pco wrapped API on arbitrary header / chunk meta / page bytes, any dtype and
// page size. It must decode or throw DecodeError, never crash or over-allocate.
#include "pco/wrapped.hpp"

using namespace numdecode;
using namespace numdecode::pco;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 6) return 0;
  // Layout: dtype byte, meta length, page n (2 bytes, scaled), then header(2) | meta | page.
  auto dtype = dtype_from_byte(uint8_t(1 + data[0] % 11));
  size_t meta_len = data[1];
  size_t n = (size_t(data[2]) | size_t(data[3]) << 8) * (1 + (data[0] >> 4));
  Bytes rest(data + 4, size - 4);
  if (rest.size() < 2 + meta_len) return 0;
  try {
    FormatVersion v = read_wrapped_header(rest.subspan(0, 2));
    ChunkDecoder chunk = read_wrapped_chunk(rest.subspan(2, meta_len), *dtype, v);
    ByteBuffer values = decode_wrapped_page(chunk, rest.subspan(2 + meta_len), n);
    if (values.size() != n * dtype_bytes(*dtype)) __builtin_trap();
  } catch (const DecodeError&) {
  }
  return 0;
}
