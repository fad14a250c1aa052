// ALP entry points of the wasm module (see js/alp.js for the public API). Plain exported C
// functions, no embind (its runtime was about 6 kB gzip of glue): results that are not one number
// are left in static memory for js/alp.js to copy out before its next call, JSON text
// (NUL-terminated) or bytes (ptr, size). f32 != 0 selects float pages.
#include <emscripten/emscripten.h>

#include <cmath>
#include <cstring>
#include <string>

#include "alp/alp.hpp"
#include "bindings/binding_util.hpp"
#include "core/error.hpp"

namespace numdecode::bindings {
namespace {

using namespace alp;

size_t index_arg(double x, const char* what) {
  if (!(x >= 0) || x != std::floor(x) || x > 9007199254740991.0)
    fail("ALP ", what, " must be a non-negative integer, got ", x);
  return static_cast<size_t>(x);
}

// decodeVector's values and encoded pages go to JS through bytes_result (binding_util.hpp); JS
// frees a large one at once (numdecode_alp_release_result).

template <class T>
const BytesResult* decode_vector(Bytes page, size_t k) {
  return bytes_result(PageReader<T>(page).decode_vector(k));
}

std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      out += ' ';
    } else {
      out += c;
    }
  }
  return out + "\"";
}

// Text built with <<, as std::ostream writes each part (core/error.hpp): std::ostringstream would
// link libc++'s iostream and locale code, a fifth of the module.
struct Text {
  std::string text;
  template <class T>
  Text& operator<<(const T& part) {
    detail::append_part(text, part);
    return *this;
  }
  const std::string& str() const { return text; }
};

// Header fields, then one entry per vector. A malformed vector gets {"index", "error"} instead of
// failing the whole call, so that the CLI can show where a damaged page goes wrong.
template <class T>
std::string inspect_json(Bytes page) {
  const PageReader<T> reader(page);
  const PageHeader& h = reader.header();
  Text j;
  j << "{\"dtype\":\"" << AlpTraits<T>::kName << "\",\"layout\":\"" << layout_name(h.layout) << "\""
    << ",\"headerBytes\":" << h.header_bytes;
  if (h.layout == Layout::kDraft) j << ",\"version\":" << h.version;
  j << ",\"compressionMode\":" << h.compression_mode << ",\"integerEncoding\":" << h.integer_encoding
    << ",\"logVectorSize\":" << h.log_vector_size << ",\"vectorSize\":" << h.vector_size
    << ",\"numElements\":" << h.num_elements << ",\"numVectors\":" << h.num_vectors << ",\"pageBytes\":" << page.size()
    << ",\"vectors\":[";
  bool all_valid = true;
  for (size_t k = 0; k < reader.num_vectors(); ++k) {
    if (k) j << ",";
    try {
      const VectorInfo v = reader.vector_info(k);
      // The frame is a signed integer stored as its unsigned bits; JSON carries it as a decimal
      // string (an i64 does not fit a JS number) and js/alp.js turns it into a Number or BigInt.
      const auto frame = static_cast<typename AlpTraits<T>::Signed>(v.frame_of_reference);
      j << "{\"index\":" << k << ",\"firstValue\":" << v.first_value << ",\"numValues\":" << v.num_values
        << ",\"offset\":" << v.offset << ",\"bytes\":" << v.bytes << ",\"exponent\":" << v.exponent
        << ",\"factor\":" << v.factor << ",\"exceptions\":" << v.num_exceptions << ",\"frameOfReference\":\""
        << static_cast<int64_t>(frame) << "\",\"bitWidth\":" << v.bit_width << "}";
    } catch (const DecodeError& e) {
      all_valid = false;
      j << "{\"index\":" << k << ",\"error\":" << json_string(e.what()) << "}";
    }
  }
  j << "],\"valid\":" << (all_valid ? "true" : "false") << "}";
  return j.str();
}

// merged: 0 = the draft layout, 1 = the merged Parquet one; exponent < 0 means "choose per
// vector by sampling".
const BytesResult* encode_values(uintptr_t ptr, size_t len, int f32, int merged, int log_vector_size, int exponent,
                                 int factor) {
  return guarded([&] {
    EncodeOptions options;
    options.layout = merged ? Layout::kMerged : Layout::kDraft;
    if (log_vector_size < 0) fail("ALP encode: logVectorSize must be in [3, 15], got ", log_vector_size);
    options.log_vector_size = static_cast<unsigned>(log_vector_size);
    if (exponent >= 0) {
      if (factor < 0) fail("ALP encode: factor must be >= 0 when exponent is given, got ", factor);
      options.force_exponent_factor = true;
      options.exponent = static_cast<unsigned>(exponent);
      options.factor = static_cast<unsigned>(factor);
    }
    const Bytes raw = heap_bytes(ptr, len);
    const size_t width = f32 ? 4 : 8;
    if (len % width != 0) fail("ALP encode: ", len, " bytes is not a whole number of ", f32 ? "f32" : "f64", " values");
    // Copy to aligned storage: the heap copy made by JS has no alignment guarantee for f64.
    std::vector<uint8_t> page;
    if (width == 4) {
      std::vector<float> values(len / 4);
      if (len) std::memcpy(values.data(), raw.data(), len);
      page = encode<float>(std::span<const float>(values), options);
    } else {
      std::vector<double> values(len / 8);
      if (len) std::memcpy(values.data(), raw.data(), len);
      page = encode<double>(std::span<const double>(values), options);
    }
    return bytes_result(std::move(page));
  });
}

}  // namespace

}  // namespace numdecode::bindings

// inspect, decodeVector, encode and the reader's random access (js/alp.js; exported in
// CMakeLists.txt). Pointers travel as uint32.
extern "C" {

// Vector k's values: a BytesResult JS copies out.
EMSCRIPTEN_KEEPALIVE const void* numdecode_alp_decode_vector(uintptr_t ptr, size_t len, int f32, double k) {
  using namespace numdecode::bindings;
  return guarded([&]() -> const void* {
    const numdecode::Bytes page = heap_bytes(ptr, len);
    const size_t index = index_arg(k, "vector index");
    return f32 ? decode_vector<float>(page, index) : decode_vector<double>(page, index);
  });
}

// The page's header and per-vector metadata as JSON (NUL-terminated, kept until the next inspect).
EMSCRIPTEN_KEEPALIVE const char* numdecode_alp_inspect(uintptr_t ptr, size_t len, int f32) {
  using namespace numdecode::bindings;
  return guarded([&] {
    const numdecode::Bytes page = heap_bytes(ptr, len);
    return text_result(f32 ? inspect_json<float>(page) : inspect_json<double>(page));
  });
}

// One page holding the len / 4 (f32) or len / 8 values at ptr: a BytesResult, as above.
EMSCRIPTEN_KEEPALIVE const void* numdecode_alp_encode(uintptr_t ptr, size_t len, int f32, int merged,
                                                      int log_vector_size, int exponent, int factor) {
  return numdecode::bindings::encode_values(ptr, len, f32, merged, log_vector_size, exponent, factor);
}

// JS has copied a large BytesResult out (an encoded page): its memory is freed now rather than
// at the next call.
EMSCRIPTEN_KEEPALIVE void numdecode_alp_release_result() {
  using namespace numdecode::bindings;
  kept<std::vector<uint8_t>>() = {};
  kept<numdecode::alp::ValueVector<float>>() = {};
  kept<numdecode::alp::ValueVector<double>>() = {};
}

}  // extern "C"

// The per-page decode path of alp.decode / decodeInto / decodeView and alp.open(): plain C
// exports (no embind invoker on every call), writing straight into a buffer in wasm memory that
// JS allocated for exactly the values asked for. f32 != 0 selects float pages.
extern "C" {

// How many values the page holds (checks the header).
EMSCRIPTEN_KEEPALIVE double numdecode_alp_size(uintptr_t ptr, size_t len, int f32) {
  using namespace numdecode;
  using namespace numdecode::alp;
  return bindings::guarded([&]() -> double {
    const Bytes page = bindings::heap_bytes(ptr, len);
    return f32 ? double(PageReader<float>(page).size()) : double(PageReader<double>(page).size());
  });
}

// Values [start, end) into out (room for end - start values), a fresh buffer that js/alp.js frees
// when this throws: each vector is checked as it is decoded (in cache), not all of them first.
EMSCRIPTEN_KEEPALIVE void numdecode_alp_decode_to(uintptr_t ptr, size_t len, int f32, double start, double end,
                                                  uintptr_t out) {
  using namespace numdecode;
  using namespace numdecode::alp;
  bindings::guarded([&]() -> int {
    const Bytes page = bindings::heap_bytes(ptr, len);
    const size_t s = bindings::index_arg(start, "range start"), e = bindings::index_arg(end, "range end");
    if (f32) PageReader<float>(page).decode_range_streaming(s, e, reinterpret_cast<float*>(out));
    else PageReader<double>(page).decode_range_streaming(s, e, reinterpret_cast<double*>(out));
    return 0;
  });
}

// Checks every vector that values [start, end) touch (offsets, sizes, exception positions) and
// decodes nothing: js/alp.js calls it before decoding a large range piece by piece into memory the
// caller owns, so that a bad vector in a later piece throws (naming it) before any piece is copied out.
EMSCRIPTEN_KEEPALIVE void numdecode_alp_check(uintptr_t ptr, size_t len, int f32, double start, double end) {
  using namespace numdecode;
  using namespace numdecode::alp;
  bindings::guarded([&]() -> int {
    const Bytes page = bindings::heap_bytes(ptr, len);
    const size_t s = bindings::index_arg(start, "range start"), e = bindings::index_arg(end, "range end");
    if (f32) PageReader<float>(page).check_range(s, e);
    else PageReader<double>(page).check_range(s, e);
    return 0;
  });
}

}  // extern "C"
