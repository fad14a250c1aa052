// Pco entry points of the wasm module (see js/pco.js for the public API). Plain exported C
// functions, no embind: embind's runtime was a quarter of the Pco module's download, and the
// Pco module is what a Zarr viewer loads. Results that are not one number are left in static
// memory for js/pco.js to read before its next call: structs of uint32 fields, JSON text
// (NUL-terminated), or decoded bytes (ptr, size) that JS copies out.
#include <emscripten/emscripten.h>

#include <optional>
#include <string>
#include <unordered_map>

#include "bindings/binding_util.hpp"
#include "pco/standalone.hpp"
#include "pco/wrapped.hpp"

namespace numdecode::bindings {
namespace {

using namespace pco;

// JS passes dtypes as the standalone format's codes (the indexes of numdecode_pco_dtype_names()).
DType parse_dtype(unsigned code) {
  auto d = code < 256 ? dtype_from_byte(uint8_t(code)) : std::nullopt;
  if (!d) fail("unknown Pco dtype code ", code);
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

// Dtype names by standalone code, for reading dtype codes (index 0: none), as a JSON array.
const char* dtype_names() {
  std::string json = "[null";
  for (unsigned code = 1; code < 256; ++code) {
    auto d = dtype_from_byte(uint8_t(code));
    if (!d) break;
    json += ",\"" + std::string(dtype_name(*d)) + "\"";
  }
  return text_result(json + "]");
}

// Every chunk's values, one after another in static memory, with a table JS reads:
// [count, then per chunk: dtype code, ptr, size].
const uint32_t* decode_chunks(uintptr_t ptr, size_t len, double max_output_bytes) {
  return guarded([&] {
    StandaloneFile& f = scratch_file();  // JS copies the chunks out, then releases a large one
    static std::vector<uint32_t> table;
    read_standalone(heap_bytes(ptr, len), f, true, output_limit(max_output_bytes));
    table.assign(1, uint32_t(f.chunks.size()));
    for (size_t i = 0; i < f.chunks.size(); ++i) {
      table.push_back(uint32_t(f.chunks[i].dtype));
      table.push_back(uint32_t(reinterpret_cast<uintptr_t>(f.chunk_values(i))));
      table.push_back(uint32_t(f.chunks[i].value_bytes()));
    }
    return static_cast<const uint32_t*>(table.data());
  });
}

const char* inspect(uintptr_t ptr, size_t len) {
  return guarded([&] { return text_result(inspect_json(read_standalone(heap_bytes(ptr, len), false))); });
}

const char* wrapped_header(uintptr_t ptr, size_t len) {
  return guarded([&] {
    FormatVersion v = read_wrapped_header(heap_bytes(ptr, len));
    return text_result("{\"formatVersion\":{\"major\":" + std::to_string(v.major) + ",\"minor\":" + std::to_string(v.minor) + "}}");
  });
}

const char* wrapped_chunk(uintptr_t hptr, size_t hlen, uintptr_t mptr, size_t mlen, unsigned dtype) {
  return guarded([&] {
    FormatVersion v = read_wrapped_header(heap_bytes(hptr, hlen));
    ChunkDecoder chunk = read_wrapped_chunk(heap_bytes(mptr, mlen), parse_dtype(dtype), v);
    return text_result(chunk_meta_json(chunk.meta()));
  });
}

const BytesResult* wrapped_page(uintptr_t hptr, size_t hlen, uintptr_t mptr, size_t mlen, unsigned dtype, uintptr_t pptr,
                                size_t plen, double n) {
  return guarded([&] {
    if (!(n >= 0) || n != static_cast<double>(static_cast<size_t>(n))) fail("page n must be a non-negative integer, got ", n);
    FormatVersion v = read_wrapped_header(heap_bytes(hptr, hlen));
    ChunkDecoder chunk = read_wrapped_chunk(heap_bytes(mptr, mlen), parse_dtype(dtype), v);
    return bytes_result(decode_wrapped_page(chunk, heap_bytes(pptr, plen), static_cast<size_t>(n)));
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

// What decode_view leaves for JS.
struct ViewResult {
  uint32_t handle;
  uint32_t dtype_code;  // 0 when the file declares none
  uint32_t ptr;
  uint32_t byte_length;
};

const ViewResult* decode_view(uintptr_t ptr, size_t len, double max_output_bytes) {
  return guarded([&] {
    StandaloneFile f = read_standalone(heap_bytes(ptr, len), true, output_limit(max_output_bytes));
    std::optional<DType> dtype = single_dtype(f, "pco.decodeView");
    ViewTable& table = view_table();
    uint32_t handle = table.next_handle++;
    if (table.next_handle == 0) table.next_handle = 1;
    ByteBuffer& kept = table.buffers[handle] = std::move(f.values);
    table.live_bytes += kept.size();
    static ViewResult result;
    result = {handle, dtype ? uint32_t(*dtype) : 0u, uint32_t(reinterpret_cast<uintptr_t>(kept.data())), uint32_t(kept.size())};
    return static_cast<const ViewResult*>(&result);
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

// [live views, bytes they hold].
const uint32_t* view_stats() {
  const ViewTable& table = view_table();
  static uint32_t stats[2];
  stats[0] = uint32_t(table.buffers.size());
  stats[1] = uint32_t(table.live_bytes);
  return stats;
}
// ---- end of zero-copy views -------------------------------------------------------------------

}  // namespace

}  // namespace numdecode::bindings

// The entry points js/pco.js calls (exported in CMakeLists.txt). Pointers travel as uint32.
extern "C" {
using namespace numdecode::bindings;
EMSCRIPTEN_KEEPALIVE uintptr_t numdecode_pco_decode(uintptr_t ptr, size_t len, double max_output_bytes, int into) {
  return decode(ptr, len, max_output_bytes, into != 0);
}
EMSCRIPTEN_KEEPALIVE void numdecode_pco_release_scratch() { release_large_scratch(); }
EMSCRIPTEN_KEEPALIVE const char* numdecode_pco_dtype_names() { return dtype_names(); }
EMSCRIPTEN_KEEPALIVE const uint32_t* numdecode_pco_decode_chunks(uintptr_t ptr, size_t len, double max_output_bytes) {
  return decode_chunks(ptr, len, max_output_bytes);
}
EMSCRIPTEN_KEEPALIVE const char* numdecode_pco_inspect(uintptr_t ptr, size_t len) { return inspect(ptr, len); }
EMSCRIPTEN_KEEPALIVE const char* numdecode_pco_wrapped_header(uintptr_t ptr, size_t len) { return wrapped_header(ptr, len); }
EMSCRIPTEN_KEEPALIVE const char* numdecode_pco_wrapped_chunk(uintptr_t hptr, size_t hlen, uintptr_t mptr, size_t mlen,
                                                             unsigned dtype) {
  return wrapped_chunk(hptr, hlen, mptr, mlen, dtype);
}
EMSCRIPTEN_KEEPALIVE const void* numdecode_pco_wrapped_page(uintptr_t hptr, size_t hlen, uintptr_t mptr, size_t mlen,
                                                            unsigned dtype, uintptr_t pptr, size_t plen, double n) {
  return wrapped_page(hptr, hlen, mptr, mlen, dtype, pptr, plen, n);
}
EMSCRIPTEN_KEEPALIVE const void* numdecode_pco_decode_view(uintptr_t ptr, size_t len, double max_output_bytes) {
  return decode_view(ptr, len, max_output_bytes);
}
EMSCRIPTEN_KEEPALIVE int numdecode_pco_release_view(uint32_t handle) { return release_view(handle) ? 1 : 0; }
EMSCRIPTEN_KEEPALIVE const uint32_t* numdecode_pco_view_stats() { return view_stats(); }
}
