// libFuzzer: bytes read as numbers of each dtype, encoded with fuzzed options (the first 8 bytes),
// must either be refused with std::invalid_argument (an option the numbers cannot take) or decode
// through our decoder to the same bits, as a standalone file and as wrapped pages.
#include <cstdlib>
#include <cstring>
#include <stdexcept>

#include "pco/encode/chunk_encoder.hpp"
#include "pco/encode/standalone_writer.hpp"
#include "pco/standalone.hpp"
#include "pco/wrapped.hpp"

using namespace numdecode;
using namespace numdecode::pco;

namespace {

constexpr DType kDtypes[] = {DType::U8,  DType::I8,  DType::U16, DType::I16, DType::F16, DType::U32,
                             DType::I32, DType::F32, DType::U64, DType::I64, DType::F64};

ChunkConfig config_from(const uint8_t* o) {
  ChunkConfig c;
  c.level = o[1] % 13;
  c.mode.kind = static_cast<ModeSpec::Kind>(o[2] % 6);
  c.mode.int_base = 1 + o[3] % 16;
  static const double bases[] = {0.1, 0.25, 1.0, 3.0, -0.5, 1e-3, 7.5, 1e30};
  c.mode.float_base = bases[o[3] % 8];
  c.mode.k = 1 + o[3] % 10;
  c.delta.kind = static_cast<DeltaSpec::Kind>(o[4] % 5);
  c.delta.order = o[5] % 8;
  static const size_t pages[] = {kDefaultMaxPageN, 1, 3, 17, 256, 257, 1000, 4096};
  c.max_page_n = pages[o[6] % 8];
  return c;
}

void check(DType dtype, Bytes values, const ChunkConfig& c) {
  std::vector<uint8_t> file;
  try {
    file = encode_standalone(dtype, values, c);
  } catch (const std::invalid_argument&) {
    return;
  }
  const StandaloneFile decoded = read_standalone(file);
  if (decoded.values.size() != values.size() || (!values.empty() && std::memcmp(decoded.values.data(), values.data(), values.size())))
    std::abort();  // the standalone file did not round-trip

  if (values.empty()) return;
  const ChunkEncoder chunk(dtype, values, c);
  std::vector<uint8_t> meta;
  chunk.write_meta(meta);
  const ChunkDecoder decoder = read_wrapped_chunk(meta, dtype, FormatVersion{4, 1});
  size_t at = 0;
  for (size_t i = 0; i < chunk.page_ns().size(); ++i) {
    std::vector<uint8_t> page;
    chunk.write_page(i, page);
    const ByteBuffer got = decode_wrapped_page(decoder, page, chunk.page_ns()[i]);
    if (got.size() != chunk.page_ns()[i] * dtype_bytes(dtype) || std::memcmp(got.data(), values.data() + at, got.size()))
      std::abort();  // a wrapped page did not round-trip
    at += got.size();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 8) return 0;
  const DType dtype = kDtypes[data[0] % std::size(kDtypes)];
  const ChunkConfig c = config_from(data);
  const size_t width = dtype_bytes(dtype);
  Bytes values(data + 8, (size - 8) / width * width);
  check(dtype, values, c);
  return 0;
}
