// Pco encoder entry points, in a module of their own (numdecode-pco-encode-*): a page that only
// decodes Pco downloads no encoder. Plain C exports (see js/pco-encode.js for the public API).
// Options arrive positionally, validated by JS first (C++ checks again and throws): dtype as the
// standalone format's code; mode 0 auto, 1 classic, 2 intMult, 3 floatMult, 4 floatQuant, 5 dict;
// delta 0 auto, 1 noOp, 2 consecutive, 3 lookback, 4 conv1. Results are bytes left in wasm memory
// (BytesResult) for JS to copy out before its next call.
#include <emscripten/emscripten.h>

#include <cstring>
#include <optional>

#include "bindings/binding_util.hpp"
#include "pco/encode/chunk_encoder.hpp"
#include "pco/encode/meta_writer.hpp"
#include "pco/encode/standalone_writer.hpp"

namespace numdecode::bindings {
namespace {

using namespace pco;

DType dtype_arg(unsigned code) {
  const auto d = code < 256 ? dtype_from_byte(uint8_t(code)) : std::nullopt;
  if (!d) fail("unknown Pco dtype code ", code);
  return *d;
}

// page_ns: count sizes (uint32) at page_ns_ptr, or none for pages of at most max_page_n.
ChunkConfig config_args(unsigned level, unsigned mode, uint32_t base_lo, uint32_t base_hi, double float_base, unsigned k,
                        unsigned delta, unsigned order, double max_page_n, uintptr_t page_ns_ptr, size_t count) {
  if (mode > 5) fail("unknown Pco mode code ", mode);
  if (delta > 4) fail("unknown Pco delta code ", delta);
  if (!(max_page_n >= 1)) fail("Pco encode: the largest page must hold at least 1 number");
  ChunkConfig c;
  c.level = level;
  c.mode.kind = static_cast<ModeSpec::Kind>(mode);
  c.mode.int_base = (uint64_t{base_hi} << 32) | base_lo;
  c.mode.float_base = float_base;
  c.mode.k = k;
  c.delta.kind = static_cast<DeltaSpec::Kind>(delta);
  c.delta.order = order;
  c.max_page_n = max_page_n >= double(SIZE_MAX) ? SIZE_MAX : size_t(max_page_n);
  const auto* ns = reinterpret_cast<const uint32_t*>(page_ns_ptr);
  for (size_t i = 0; i < count; ++i) c.page_ns.push_back(ns[i]);
  return c;
}

// A wrapped chunk as one buffer: uint32 fields (little-endian) and bytes, in order:
// header length, header, meta length, meta, page count, then per page its n, length and bytes.
struct WrappedChunkBytes {
  std::vector<uint8_t> bytes;
  void u32(uint32_t v) {
    const size_t at = bytes.size();
    bytes.resize(at + 4);
    std::memcpy(bytes.data() + at, &v, 4);
  }
  void block(const std::vector<uint8_t>& b) {
    u32(uint32_t(b.size()));
    bytes.insert(bytes.end(), b.begin(), b.end());
  }
};

}  // namespace
}  // namespace numdecode::bindings

namespace numdecode::bindings {
namespace {

// The two encoders' shared arguments, checked, then fn(dtype, values, config) guarded.
template <class Fn>
const BytesResult* with_request(uintptr_t ptr, size_t len, unsigned dtype, unsigned level, unsigned mode, uint32_t base_lo,
                                uint32_t base_hi, double float_base, unsigned k, unsigned delta, unsigned order,
                                double max_page_n, uintptr_t page_ns_ptr, size_t page_ns_count, Fn fn) {
  return guarded([&] {
    const ChunkConfig c = config_args(level, mode, base_lo, base_hi, float_base, k, delta, order, max_page_n, page_ns_ptr, page_ns_count);
    return fn(dtype_arg(dtype), heap_bytes(ptr, len), c);
  });
}

// One chunk in the wrapped format, framed as WrappedChunkBytes says.
std::vector<uint8_t> wrapped_chunk(DType dtype, Bytes values, const ChunkConfig& c) {
  const ChunkEncoder chunk(dtype, values, c);
  WrappedChunkBytes out;
  std::vector<uint8_t> part;
  {
    BitWriter w(part);
    write_wrapped_header(w);
    w.finish();
  }
  out.block(part);
  part.clear();
  chunk.write_meta(part);
  out.block(part);
  out.u32(uint32_t(chunk.page_ns().size()));
  for (size_t i = 0; i < chunk.page_ns().size(); ++i) {
    part.clear();
    chunk.write_page(i, part);
    out.u32(uint32_t(chunk.page_ns()[i]));
    out.block(part);
  }
  return std::move(out.bytes);
}

}  // namespace
}  // namespace numdecode::bindings

extern "C" {

#define NUMDECODE_ENCODE_PARAMS                                                                                \
  uintptr_t ptr, size_t len, unsigned dtype, unsigned level, unsigned mode, uint32_t base_lo, uint32_t base_hi, \
      double float_base, unsigned k, unsigned delta, unsigned order, double max_page_n, uintptr_t page_ns_ptr,  \
      size_t page_ns_count
#define NUMDECODE_ENCODE_ARGS \
  ptr, len, dtype, level, mode, base_lo, base_hi, float_base, k, delta, order, max_page_n, page_ns_ptr, page_ns_count

// A standalone file.
EMSCRIPTEN_KEEPALIVE const numdecode::bindings::BytesResult* numdecode_pco_encode(NUMDECODE_ENCODE_PARAMS) {
  using namespace numdecode::bindings;
  return with_request(NUMDECODE_ENCODE_ARGS, [](numdecode::pco::DType d, numdecode::Bytes values, const numdecode::pco::ChunkConfig& c) {
    return bytes_result(numdecode::pco::encode_standalone(d, values, c));
  });
}

// One chunk in the wrapped format (header, chunk meta, pages).
EMSCRIPTEN_KEEPALIVE const numdecode::bindings::BytesResult* numdecode_pco_encode_wrapped(NUMDECODE_ENCODE_PARAMS) {
  using namespace numdecode::bindings;
  return with_request(NUMDECODE_ENCODE_ARGS, [](numdecode::pco::DType d, numdecode::Bytes values, const numdecode::pco::ChunkConfig& c) {
    return bytes_result(wrapped_chunk(d, values, c));
  });
}

#undef NUMDECODE_ENCODE_PARAMS
#undef NUMDECODE_ENCODE_ARGS

// Frees the last result (JS calls it once it has copied the bytes out).
EMSCRIPTEN_KEEPALIVE void numdecode_pco_encode_release() {
  numdecode::bindings::kept<std::vector<uint8_t>>() = {};
}

}  // extern "C"
