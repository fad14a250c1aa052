// ALP entry points of the wasm module (see js/alp.js for the public API).
// Values leave as Uint8Arrays of little-endian f32/f64; metadata as JSON strings.
#include <emscripten/bind.h>
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

bool is_f32(const std::string& dtype) {
  if (dtype == "f32") return true;
  if (dtype == "f64") return false;
  fail("ALP dtype must be 'f32' or 'f64', got '", dtype, "'");
}

size_t index_arg(double x, const char* what) {
  if (!(x >= 0) || x != std::floor(x) || x > 9007199254740991.0)
    fail("ALP ", what, " must be a non-negative integer, got ", x);
  return static_cast<size_t>(x);
}

template <class T>
val values_to_js(const ValueVector<T>& values) {
  return copy_to_js(reinterpret_cast<const uint8_t*>(values.data()), values.size() * sizeof(T));
}

val decode_vector(uintptr_t ptr, size_t len, std::string dtype, double k) {
  return guarded([&] {
    const Bytes page = heap_bytes(ptr, len);
    const size_t index = index_arg(k, "vector index");
    return is_f32(dtype) ? values_to_js(PageReader<float>(page).decode_vector(index))
                         : values_to_js(PageReader<double>(page).decode_vector(index));
  });
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

val inspect(uintptr_t ptr, size_t len, std::string dtype) {
  return guarded([&] {
    const Bytes page = heap_bytes(ptr, len);
    return val(is_f32(dtype) ? inspect_json<float>(page) : inspect_json<double>(page));
  });
}

// layout: "draft" | "merged"; exponent < 0 means "choose per vector by sampling".
val encode_values(uintptr_t ptr, size_t len, std::string dtype, std::string layout, int log_vector_size,
                  int exponent, int factor) {
  return guarded([&] {
    EncodeOptions options;
    if (layout == "draft")
      options.layout = Layout::kDraft;
    else if (layout == "merged")
      options.layout = Layout::kMerged;
    else
      fail("ALP encode: layout must be 'draft' or 'merged', got '", layout, "'");
    if (log_vector_size < 0) fail("ALP encode: logVectorSize must be in [3, 15], got ", log_vector_size);
    options.log_vector_size = static_cast<unsigned>(log_vector_size);
    if (exponent >= 0) {
      if (factor < 0) fail("ALP encode: factor must be >= 0 when exponent is given, got ", factor);
      options.force_exponent_factor = true;
      options.exponent = static_cast<unsigned>(exponent);
      options.factor = static_cast<unsigned>(factor);
    }
    const Bytes raw = heap_bytes(ptr, len);
    const size_t width = is_f32(dtype) ? 4 : 8;
    if (len % width != 0) fail("ALP encode: ", len, " bytes is not a whole number of ", dtype, " values");
    // Copy to aligned storage: the heap copy made by JS has no alignment guarantee for f64.
    if (width == 4) {
      std::vector<float> values(len / 4);
      if (len) std::memcpy(values.data(), raw.data(), len);
      const std::vector<uint8_t> page = encode<float>(std::span<const float>(values), options);
      return copy_to_js(page.data(), page.size());
    }
    std::vector<double> values(len / 8);
    if (len) std::memcpy(values.data(), raw.data(), len);
    const std::vector<uint8_t> page = encode<double>(std::span<const double>(values), options);
    return copy_to_js(page.data(), page.size());
  });
}

}  // namespace

EMSCRIPTEN_BINDINGS(alp) {
  emscripten::function("alpDecodeVector", &decode_vector);
  emscripten::function("alpInspect", &inspect);
  emscripten::function("alpEncode", &encode_values);
}

}  // namespace numdecode::bindings

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

}  // extern "C"
