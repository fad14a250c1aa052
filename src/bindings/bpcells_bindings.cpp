// BPCells entry points for js/bpcells/. JS fetches the byte ranges (files, HTTP ranges) and
// hands them here; C++ checks array headers and decodes runs of BP-128 chunks.
//
// Plain C exports, no embind (a smaller module, and no embind invoker per call). Every function
// runs inside guarded_file (bindings::guarded, plus the array file of a FileError as err.file),
// which turns C++ exceptions into JS Errors (an escaping C++ exception would reach JS as a bare
// number). Names come from JS as (pointer, length) UTF-8: what errors call the file or stream
// ("index_idx", or "/mat/index_idx" in an HDF5 group).
#include <emscripten/emscripten.h>

#include <cstdint>
#include <exception>
#include <string>
#include <string_view>
#include <vector>

#include "bindings/binding_util.hpp"
#include "bpcells/array_file.hpp"
#include "bpcells/bp128.hpp"
#include "bpcells/file_error.hpp"
#include "bpcells/matrix.hpp"
#include "core/error.hpp"

using namespace numdecode;
using namespace numdecode::bpcells;

// As numdecode_throw_js_error (core_bindings.cpp), with err.file = the array file (ptr, length).
EM_JS(void, numdecode_bpcells_throw_file_error,
      (const char* message, size_t length, const char* code, const char* file, size_t file_length), {
  var error = new Error(UTF8ToString(message, length));
  error.code = UTF8ToString(code);
  error.file = UTF8ToString(file, file_length);
  throw error;
});

namespace {

Bytes bytes_at(uintptr_t ptr, size_t len) { return bindings::heap_bytes(ptr, len); }
std::string_view text_at(uintptr_t ptr, size_t len) { return {reinterpret_cast<const char*>(ptr), len}; }

// A FileError on its way to JS: copied out in its catch block and thrown into JS after that block
// has ended, as bindings::guarded does (a JS throw from inside a catch block would skip the end of
// the catch and leak the exception). Kept in one static place, as text results are (JS calls the
// module from one thread): no strings to destroy in every export, and one copy of this code.
struct FileFailure {
  std::string message, file;
  const char* code = nullptr;
};
FileFailure& file_failure() {
  static FileFailure failure;
  return failure;
}
[[gnu::noinline, gnu::cold]] void keep_file_failure(const FileError& e) {
  FileFailure& f = file_failure();
  f.message = e.what();
  f.file = e.file();
  f.code = bindings::error_code(e.kind());
}
[[noreturn, gnu::noinline, gnu::cold]] void throw_file_failure() {
  const FileFailure& f = file_failure();
  numdecode_bpcells_throw_file_error(f.message.data(), f.message.size(), f.code, f.file.data(), f.file.size());
  __builtin_unreachable();
}

// bindings::guarded, and a FileError's file as err.file.
template <class Fn>
auto guarded_file(Fn&& fn) -> decltype(fn()) {
  bool failed = false;
  auto result = bindings::guarded([&]() -> decltype(fn()) {
    try {
      return fn();
    } catch (const FileError& e) {
      keep_file_failure(e);
      failed = true;
    }
    return decltype(fn()){};
  });
  if (failed) throw_file_failure();
  return result;
}

// Numbers from JS arrive as doubles; they must be exact non-negative integers.
uint64_t as_count(double x, const char* what) {
  if (!(x >= 0) || x > 9007199254740992.0 || x != static_cast<double>(static_cast<uint64_t>(x)))
    fail("bpcells: ", what, " must be a non-negative integer, got ", x);
  return static_cast<uint64_t>(x);
}

}  // namespace

// The decode path of Matrix.read / readView: a plain C export (no embind invoker per call) that
// writes values [skip, skip+count) of chunks first_chunk.. straight to `out` (count u32 in wasm
// memory, allocated by JS). idx: nchunks+1 u32 word offsets relative to data; starts: nchunks u32
// (d1/d1z only). (name_ptr, name_len) names the stream in messages ("index", "/mat/val").
extern "C" EMSCRIPTEN_KEEPALIVE int numdecode_bpcells_decode_to(int variant, uintptr_t data_ptr, size_t data_len,
                                                               uintptr_t idx_ptr, size_t nchunks, uintptr_t starts_ptr,
                                                               double first_chunk, double skip, double count,
                                                               double value_limit, uintptr_t name_ptr, size_t name_len,
                                                               uintptr_t out) {
  return guarded_file([&]() -> int {
    const std::string_view name = text_at(name_ptr, name_len);
    if (variant < 0 || variant > 3) fail("bpcells: unknown BP-128 variant ", variant);
    // Reused across calls: a read decodes in blocks of a few hundred chunks.
    static std::vector<uint64_t> offsets;
    offsets.resize(nchunks + 1);
    const uint8_t* idx = reinterpret_cast<const uint8_t*>(idx_ptr);
    for (size_t i = 0; i <= nchunks; ++i) offsets[i] = load_le<uint32_t>(idx + 4 * i);
    const bool delta = variant == 2 || variant == 3;
    ChunkRun run{static_cast<Variant>(variant), bytes_at(data_ptr, data_len), offsets,
                 bytes_at(starts_ptr, delta ? 4 * nchunks : 0), as_count(first_chunk, "first chunk"), name};
    const uint64_t n = as_count(count, "count");
    if (n == 0) return 0;
    decode_chunks(run, as_count(skip, "skip"), n, reinterpret_cast<uint32_t*>(out), as_count(value_limit, "value limit"));
    return 0;
  });
}

// Throws unless the first bytes are the header of an array of `type` (0 u32, 1 u64, 2 f32, 3 f64;
// js/bpcells/matrix.js) named (name_ptr, name_len) in messages.
extern "C" EMSCRIPTEN_KEEPALIVE int numdecode_bpcells_check_header(uintptr_t ptr, size_t len, int type,
                                                                  uintptr_t name_ptr, size_t name_len) {
  return guarded_file([&]() -> int {
    static constexpr ElemType kTypes[] = {ElemType::U32, ElemType::U64, ElemType::F32, ElemType::F64};
    if (type < 0 || type > 3) fail("bpcells: unknown array type ", type);
    check_array_header(bytes_at(ptr, len), kTypes[type], text_at(name_ptr, name_len));
    return 0;
  });
}

// The version file -> JSON {"text", "packed", "dtype", "format"} (kept until the next text result);
// (name_ptr, name_len) is what errors call the file.
extern "C" EMSCRIPTEN_KEEPALIVE const char* numdecode_bpcells_parse_version(uintptr_t ptr, size_t len, uintptr_t name_ptr,
                                                                           size_t name_len) {
  return guarded_file([&]() -> const char* {
    Version v = parse_version(bytes_at(ptr, len), text_at(name_ptr, name_len));
    const char* dtype = v.value_type == ValueType::U32 ? "u32" : v.value_type == ValueType::F32 ? "f32" : "f64";
    // The text is a validated version string: plain ASCII, no JSON escaping needed.
    return bindings::text_result(std::string("{\"text\":\"") + v.text + "\",\"packed\":" + (v.packed ? "true" : "false") +
                                 ",\"dtype\":\"" + dtype + "\",\"format\":" + std::to_string(v.format) + "}");
  });
}
