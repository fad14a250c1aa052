// libFuzzer: any bytes as a Pco standalone file must decode or throw DecodeError. A file that
// decodes must decode identically when its chunks are fed through the wrapped API.
#include <cstdlib>
#include <cstring>

#include "pco/standalone.hpp"
#include "pco/wrapped.hpp"

using namespace numdecode;
using namespace numdecode::pco;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Bytes bytes(data, size);
  StandaloneFile f;
  try {
    read_standalone(bytes, f, true, size_t{256} << 20);  // a bomb of valid chunks is not a bug
  } catch (const DecodeError&) {
    return 0;
  }
  std::vector<uint8_t> header = {uint8_t(f.header.format.major)};
  if (f.header.format.major >= 4) header.push_back(uint8_t(f.header.format.minor));
  for (size_t i = 0; i < f.chunks.size(); ++i) {
    const StandaloneChunk& c = f.chunks[i];
    ChunkDecoder chunk = read_wrapped_chunk(bytes.subspan(c.byte_start + 4, c.page_start - c.byte_start - 4), c.dtype,
                                            read_wrapped_header(header));
    ByteBuffer values = decode_wrapped_page(chunk, bytes.subspan(c.page_start, c.byte_end - c.page_start), c.n);
    if (values.size() != c.value_bytes() || std::memcmp(values.data(), f.chunk_values(i), values.size()) != 0)
      std::abort();  // the two APIs disagree
  }
  return 0;
}
