// Pco entry points of the wasm module (see js/pco.js for the public API).
#include <emscripten/bind.h>

#include "bindings/binding_util.hpp"
#include "pco/standalone.hpp"
#include "pco/wrapped.hpp"

namespace numdecode::bindings {
namespace {

using namespace pco;

DType parse_dtype(const std::string& name) {
  auto d = dtype_from_name(name);
  if (!d) fail("unknown Pco dtype '", name, "' (expected one of u8 i8 u16 i16 f16 u32 i32 f32 u64 i64 f64)");
  return *d;
}

val decode_chunks(uintptr_t ptr, size_t len) {
  return guarded([&] {
    StandaloneFile f = read_standalone(heap_bytes(ptr, len));
    val chunks = val::array();
    for (auto& c : f.chunks) {
      val chunk = val::object();
      chunk.set("dtype", std::string(dtype_name(c.dtype)));
      chunk.set("bytes", copy_to_js(c.values));
      chunks.call<void>("push", chunk);
    }
    val result = val::object();
    result.set("chunks", chunks);
    if (f.header.uniform_dtype) result.set("uniformDtype", std::string(dtype_name(*f.header.uniform_dtype)));
    return result;
  });
}

val inspect(uintptr_t ptr, size_t len) {
  return guarded([&] { return val(inspect_json(read_standalone(heap_bytes(ptr, len), false))); });
}

val wrapped_header(uintptr_t ptr, size_t len) {
  return guarded([&] {
    FormatVersion v = read_wrapped_header(heap_bytes(ptr, len));
    return val("{\"formatVersion\":{\"major\":" + std::to_string(v.major) + ",\"minor\":" + std::to_string(v.minor) + "}}");
  });
}

val wrapped_chunk(uintptr_t hptr, size_t hlen, uintptr_t mptr, size_t mlen, std::string dtype) {
  return guarded([&] {
    FormatVersion v = read_wrapped_header(heap_bytes(hptr, hlen));
    ChunkDecoder chunk = read_wrapped_chunk(heap_bytes(mptr, mlen), parse_dtype(dtype), v);
    return val(chunk_meta_json(chunk.meta()));
  });
}

val wrapped_page(uintptr_t hptr, size_t hlen, uintptr_t mptr, size_t mlen, std::string dtype, uintptr_t pptr,
                 size_t plen, double n) {
  return guarded([&] {
    if (!(n >= 0) || n != static_cast<double>(static_cast<size_t>(n))) fail("page n must be a non-negative integer, got ", n);
    FormatVersion v = read_wrapped_header(heap_bytes(hptr, hlen));
    ChunkDecoder chunk = read_wrapped_chunk(heap_bytes(mptr, mlen), parse_dtype(dtype), v);
    return copy_to_js(decode_wrapped_page(chunk, heap_bytes(pptr, plen), static_cast<size_t>(n)));
  });
}

}  // namespace

EMSCRIPTEN_BINDINGS(pco) {
  emscripten::function("pcoDecodeChunks", &decode_chunks);
  emscripten::function("pcoInspect", &inspect);
  emscripten::function("pcoWrappedHeader", &wrapped_header);
  emscripten::function("pcoWrappedChunk", &wrapped_chunk);
  emscripten::function("pcoWrappedPage", &wrapped_page);
}

}  // namespace numdecode::bindings
