// Pco entry points of the wasm module (see js/pco.js for the public API).
#include <emscripten/bind.h>
#include <emscripten/emscripten.h>

#include <optional>
#include <unordered_map>

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

// Decoding reuses one buffer across calls (its pages are already mapped, so repeated
// decodes do not pay for fresh memory), but does not keep a very large one alive.
StandaloneFile& scratch_file() {
  static StandaloneFile file;
  return file;
}

void release_large_scratch() {
  constexpr size_t kKeep = size_t{64} << 20;
  if (scratch_file().values.size() > kKeep) scratch_file() = StandaloneFile{};
}

// All values of a file whose chunks share one dtype, in a single copy.
// JS passes the caller's maxOutputBytes as a double (Infinity for none).
size_t output_limit(double max_output_bytes) {
  if (!(max_output_bytes >= 0)) fail("maxOutputBytes must be a non-negative number");
  return max_output_bytes >= double(SIZE_MAX) ? SIZE_MAX : size_t(max_output_bytes);
}

// The one dtype of a file whose chunks all share it (or its declared uniform dtype when it has
// no chunks); decode and decodeView refuse mixed files and point to decodeChunks.
std::optional<DType> single_dtype(const StandaloneFile& f, const char* api) {
  std::optional<DType> dtype = f.header.uniform_dtype;
  for (const auto& c : f.chunks) {
    if (dtype && c.dtype != *dtype)
      fail(api, ": the file's chunks have different dtypes (", dtype_name(*dtype), " and ", dtype_name(c.dtype),
           "); use pco.decodeChunks to get each chunk in its own dtype");
    dtype = c.dtype;
  }
  return dtype;
}

// What pcoDecode leaves in the heap for js/pco.js: plain numbers, because building a JS
// object through embind costs more than decoding a small file does.
struct DecodeResult {
  uint32_t values_ptr;    // the scratch buffer: JS copies the values out before the next call
  uint32_t values_bytes;
  uint32_t dtype_code;    // the standalone format's dtype byte; 0 when the file declares none
};

// into: called for pco.decodeInto (names it in errors) rather than pco.decode.
uintptr_t decode(uintptr_t ptr, size_t len, double max_output_bytes, bool into) {
  return guarded([&]() -> uintptr_t {
    StandaloneFile& f = scratch_file();
    read_standalone(heap_bytes(ptr, len), f, true, output_limit(max_output_bytes));
    std::optional<DType> dtype = single_dtype(f, into ? "pco.decodeInto" : "pco.decode");
    static DecodeResult result;
    result = {uint32_t(reinterpret_cast<uintptr_t>(f.values.data())), uint32_t(f.values.size()),
              dtype ? uint32_t(*dtype) : 0u};
    return reinterpret_cast<uintptr_t>(&result);
  });
}

// Dtype names by standalone code, for reading DecodeResult::dtype_code (index 0: none).
val dtype_names() {
  val names = val::array();
  names.set(0, val::null());
  for (unsigned code = 1; code < 256; ++code) {
    auto d = dtype_from_byte(uint8_t(code));
    if (!d) break;
    names.set(code, std::string(dtype_name(*d)));
  }
  return names;
}

val decode_chunks(uintptr_t ptr, size_t len, double max_output_bytes) {
  return guarded([&] {
    StandaloneFile f = read_standalone(heap_bytes(ptr, len), true, output_limit(max_output_bytes));
    val chunks = val::array();
    for (size_t i = 0; i < f.chunks.size(); ++i) {
      val chunk = val::object();
      chunk.set("dtype", std::string(dtype_name(f.chunks[i].dtype)));
      chunk.set("bytes", copy_to_js(f.chunk_values(i), f.chunks[i].value_bytes()));
      chunks.call<void>("push", chunk);
    }
    return chunks;
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

// ---- Zero-copy views (pco.decodeView in js/pco.js) -------------------------------------------
// The decoded values stay in wasm memory, owned by a handle table, until JS calls
// pcoReleaseView(handle). JS reads them through a typed array over the heap instead of a copy.
struct ViewTable {
  std::unordered_map<uint32_t, ByteBuffer> buffers;
  uint32_t next_handle = 1;  // 0 is never a live handle
  size_t live_bytes = 0;
};

ViewTable& view_table() {
  static ViewTable table;
  return table;
}

val decode_view(uintptr_t ptr, size_t len, double max_output_bytes) {
  return guarded([&] {
    StandaloneFile f = read_standalone(heap_bytes(ptr, len), true, output_limit(max_output_bytes));
    std::optional<DType> dtype = single_dtype(f, "pco.decodeView");
    ViewTable& table = view_table();
    uint32_t handle = table.next_handle++;
    if (table.next_handle == 0) table.next_handle = 1;
    ByteBuffer& kept = table.buffers[handle] = std::move(f.values);
    table.live_bytes += kept.size();
    val result = val::object();
    result.set("handle", handle);
    result.set("dtype", dtype ? val(std::string(dtype_name(*dtype))) : val::null());
    result.set("ptr", static_cast<double>(reinterpret_cast<uintptr_t>(kept.data())));
    result.set("byteLength", static_cast<double>(kept.size()));
    return result;
  });
}

// True when the handle was live (its memory is now free), false for unknown or released handles.
bool release_view(uint32_t handle) {
  ViewTable& table = view_table();
  auto it = table.buffers.find(handle);
  if (it == table.buffers.end()) return false;
  table.live_bytes -= it->second.size();
  table.buffers.erase(it);
  return true;
}

val view_stats() {
  const ViewTable& table = view_table();
  val stats = val::object();
  stats.set("live", static_cast<double>(table.buffers.size()));
  stats.set("bytes", static_cast<double>(table.live_bytes));
  return stats;
}
// ---- end of zero-copy views -------------------------------------------------------------------

}  // namespace

EMSCRIPTEN_BINDINGS(pco) {
  emscripten::function("pcoDtypeNames", &dtype_names);
  emscripten::function("pcoDecodeChunks", &decode_chunks);
  emscripten::function("pcoInspect", &inspect);
  emscripten::function("pcoWrappedHeader", &wrapped_header);
  emscripten::function("pcoWrappedChunk", &wrapped_chunk);
  emscripten::function("pcoWrappedPage", &wrapped_page);
  // Zero-copy views
  emscripten::function("pcoDecodeView", &decode_view);
  emscripten::function("pcoReleaseView", &release_view);
  emscripten::function("pcoViewStats", &view_stats);
}

}  // namespace numdecode::bindings

// The small-file path, called on every pco.decode / decodeInto: plain C exports rather than
// embind functions, because embind's generic invoker (the one that needs no `new Function`, so
// that pages with a strict Content-Security-Policy work) costs more than decoding a few values.
extern "C" {
EMSCRIPTEN_KEEPALIVE uintptr_t numdecode_pco_decode(uintptr_t ptr, size_t len, double max_output_bytes, int into) {
  return numdecode::bindings::decode(ptr, len, max_output_bytes, into != 0);
}
EMSCRIPTEN_KEEPALIVE void numdecode_pco_release_scratch() { numdecode::bindings::release_large_scratch(); }
}
