// Pco entry points of the wasm module (see js/pco.js for the public API). Plain exported C
// functions, no embind: embind's runtime was a quarter of the Pco module's download, and the
// Pco module is what a Zarr viewer loads. Results that are not one number are left in static
// memory for js/pco.js to read before its next call: structs of uint32 fields, JSON text
// (NUL-terminated), or decoded bytes (ptr, size) that JS copies out.
#include <emscripten/emscripten.h>

#include <cstring>
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

// ---- Zarr chunks (js/zarr/chunk-decode.js) ---------------------------------------------------
// A Zarr chunk is one standalone file holding the chunk's values in the array's stored axis order.
// A read wants only its selection's share of the chunk (a box: start, step and count per axis),
// packed in C order, so that JS places it with one copy per output row, not one per value.
constexpr unsigned kMaxBoxAxes = 32;
uint32_t box_params[4 * kMaxBoxAxes];  // JS fills: extent[n], start[n], step[n], count[n]

ByteBuffer& box_buffer() {
  static ByteBuffer buffer;
  return buffer;
}

// Copies `count` values of T, `from_step` bytes apart in the source and `to_step` apart in the
// destination: a step along the innermost axis (an overview, say), one value at a time.
template <class T>
void copy_values(const uint8_t* from, uint8_t* to, size_t from_step, size_t to_step, uint32_t count) {
  for (uint32_t i = 0; i < count; ++i, from += from_step, to += to_step) {
    T v;
    std::memcpy(&v, from, sizeof(T));
    std::memcpy(to, &v, sizeof(T));
  }
}

// Where a box goes in a target (a slab JS assembles, or a Zarr view's output: memory JS owns, one
// per read, so that reads running at the same time never share one).
uint32_t slab_params[kMaxBoxAxes + 1];  // JS fills: the box's first value in the target, then its stride per axis (values)

// Copies the box of a C-order array of `extent` (values of `width` bytes) from src to dst, whose
// stride along each box axis is dst_stride (bytes). Trailing axes taken whole, where dst holds them
// contiguously too, make one block per step of the innermost axis that is not: one memcpy per run
// of contiguous bytes (the whole box, when both sides are contiguous).
void place_box(const uint8_t* src, uint8_t* dst, size_t width, unsigned n, const uint32_t* extent, const uint32_t* start,
               const uint32_t* step, const uint32_t* count, const size_t* dst_stride) {
  size_t stride[kMaxBoxAxes];  // bytes
  size_t s = width;
  for (unsigned a = n; a-- > 0;) {
    stride[a] = s;
    s *= extent[a];
  }
  unsigned inner = n;
  while (inner > 0 && start[inner - 1] == 0 && step[inner - 1] == 1 && count[inner - 1] == extent[inner - 1] &&
         dst_stride[inner - 1] == stride[inner - 1])
    --inner;
  if (inner == 0) {
    std::memcpy(dst, src, s);
    return;
  }
  const unsigned axis = inner - 1;  // the innermost axis not merged into blocks
  const size_t block = stride[axis];  // bytes of one step along it, in src (and in dst)
  const size_t run = step[axis] == 1 && dst_stride[axis] == block ? block * count[axis] : 0;  // contiguous on both sides
  uint32_t at[kMaxBoxAxes] = {};
  for (;;) {
    const uint8_t* from = src + size_t(start[axis]) * stride[axis];
    uint8_t* to = dst;
    for (unsigned a = 0; a < axis; ++a) {
      from += (size_t(start[a]) + size_t(at[a]) * step[a]) * stride[a];
      to += size_t(at[a]) * dst_stride[a];
    }
    const size_t jump = size_t(step[axis]) * stride[axis];
    if (run) {
      std::memcpy(to, from, run);
    } else if (block == width) {
      switch (width) {
        case 1: copy_values<uint8_t>(from, to, jump, dst_stride[axis], count[axis]); break;
        case 2: copy_values<uint16_t>(from, to, jump, dst_stride[axis], count[axis]); break;
        case 4: copy_values<uint32_t>(from, to, jump, dst_stride[axis], count[axis]); break;
        default: copy_values<uint64_t>(from, to, jump, dst_stride[axis], count[axis]); break;
      }
    } else {
      for (uint32_t i = 0; i < count[axis]; ++i, from += jump, to += dst_stride[axis]) std::memcpy(to, from, block);
    }
    unsigned a = axis;
    while (a > 0 && ++at[a - 1] == count[a - 1]) at[--a] = 0;
    if (a == 0) return;
  }
}

// Packs the box into dst, C-contiguous over `count`: placing it with the packed box's own strides.
void pack_box(const uint8_t* src, uint8_t* dst, size_t width, unsigned n, const uint32_t* extent, const uint32_t* start,
              const uint32_t* step, const uint32_t* count) {
  size_t dst_stride[kMaxBoxAxes];
  size_t s = width;
  for (unsigned a = n; a-- > 0;) {
    dst_stride[a] = s;
    s *= count[a];
  }
  place_box(src, dst, width, n, extent, start, step, count, dst_stride);
}

// Decodes one chunk (expected_dtype: the standalone dtype code the array needs) and packs the box
// described in box_params over n axes into the box buffer, or (target given: the slab, or a Zarr
// readView's output) places it in the target's target_size bytes as slab_params say. Leaves
// {ptr, bytes, dtype} for JS, valid until the next call (with a target: 0 bytes).
uintptr_t decode_box(uintptr_t ptr, size_t len, unsigned expected_dtype, unsigned n, uint8_t* target, size_t target_size) {
  return guarded([&]() -> uintptr_t {
    if (n == 0 || n > kMaxBoxAxes) fail("a chunk box has 1 to ", kMaxBoxAxes, " axes, got ", n);
    const DType dtype = parse_dtype(expected_dtype);
    const uint32_t* extent = box_params;
    const uint32_t* start = box_params + n;
    const uint32_t* step = box_params + 2 * n;
    const uint32_t* count = box_params + 3 * n;
    size_t values = 1, packed = 1;
    for (unsigned a = 0; a < n; ++a) {
      if (extent[a] == 0 || count[a] == 0 || step[a] == 0 || start[a] + uint64_t(count[a] - 1) * step[a] >= extent[a])
        fail("box axis ", a, " (start ", start[a], ", step ", step[a], ", count ", count[a], ") is not inside the chunk's extent ", extent[a]);
      values *= extent[a];
      packed *= count[a];
    }
    const size_t width = dtype_bytes(dtype);
    size_t dst_stride[kMaxBoxAxes];
    const bool to_target = target != nullptr;
    if (to_target) {
      // The last value the box would write must lie inside the target.
      uint64_t last = slab_params[0];
      for (unsigned a = 0; a < n; ++a) {
        dst_stride[a] = size_t(slab_params[1 + a]) * width;
        last += uint64_t(count[a] - 1) * slab_params[1 + a];
      }
      if ((last + 1) * width > target_size) fail("the box does not fit in the slab of ", target_size, " bytes");
    }
    StandaloneFile& f = scratch_file();
    // A chunk decodes to exactly its shape's values: a few bytes of Pco claiming more are refused early.
    read_standalone(heap_bytes(ptr, len), f, true, values * width);
    std::optional<DType> found = single_dtype(f, "zarr chunk");
    if (found && *found != dtype)
      fail("the chunk holds ", dtype_name(*found), " values but the array's data type needs ", dtype_name(dtype));
    if (f.values.size() != values * width)
      fail("the chunk holds ", f.values.size() / width, " values but its shape needs ", values);
    static DecodeResult result;
    const uint8_t* out = f.values.data();
    if (to_target) {
      place_box(out, target + size_t(slab_params[0]) * width, width, n, extent, start, step, count, dst_stride);
      result = {uint32_t(reinterpret_cast<uintptr_t>(target)), 0, uint32_t(dtype)};
      return reinterpret_cast<uintptr_t>(&result);
    }
    if (packed != values) {
      ByteBuffer& buffer = box_buffer();
      buffer.resize(packed * width);
      pack_box(f.values.data(), buffer.data(), width, n, extent, start, step, count);
      out = buffer.data();
    }
    result = {uint32_t(reinterpret_cast<uintptr_t>(out)), uint32_t(packed * width), uint32_t(dtype)};
    return reinterpret_cast<uintptr_t>(&result);
  });
}

void release_large_box() {
  constexpr size_t kKeep = size_t{64} << 20;
  if (box_buffer().size() > kKeep) box_buffer() = ByteBuffer{};
  release_large_scratch();
}
// ---- end of Zarr chunks ------------------------------------------------------------------------

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
EMSCRIPTEN_KEEPALIVE uint32_t* numdecode_pco_box_params() { return box_params; }
EMSCRIPTEN_KEEPALIVE uintptr_t numdecode_pco_decode_box(uintptr_t ptr, size_t len, unsigned expected_dtype, unsigned axes) {
  return decode_box(ptr, len, expected_dtype, axes, nullptr, 0);
}
EMSCRIPTEN_KEEPALIVE uint32_t* numdecode_pco_slab_params() { return slab_params; }
// A box into `dst_bytes` bytes at `dst` (a slab, or a Zarr readView's output: allocated with malloc).
EMSCRIPTEN_KEEPALIVE uintptr_t numdecode_pco_decode_box_into(uintptr_t ptr, size_t len, unsigned expected_dtype, unsigned axes,
                                                             uintptr_t dst, double dst_bytes) {
  return decode_box(ptr, len, expected_dtype, axes, reinterpret_cast<uint8_t*>(dst), static_cast<size_t>(dst_bytes));
}
EMSCRIPTEN_KEEPALIVE void numdecode_pco_release_box() { release_large_box(); }
}
