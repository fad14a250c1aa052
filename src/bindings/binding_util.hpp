// Shared glue for the bindings: inputs arrive as (pointer, length) into the wasm
// heap; outputs leave as fresh JS copies; C++ errors become JS Errors with their message.
#pragma once
#include <emscripten/val.h>

#include <cstdint>
#include <exception>
#include <string>
#include <type_traits>
#include <vector>

#include "core/bytes.hpp"
#include "core/error.hpp"

// Throws a JS Error with the UTF-8 message (ptr, length) and err.code = code (core_bindings.cpp).
extern "C" void numdecode_throw_js_error(const char* message, size_t length, const char* code);

namespace numdecode::bindings {

using emscripten::val;

inline Bytes heap_bytes(uintptr_t ptr, size_t len) { return {reinterpret_cast<const uint8_t*>(ptr), len}; }

// A Uint8Array that owns a copy of the bytes (valid after wasm memory grows or is reused).
// (new + set, not slice: V8's slice() on a view of wasm memory copies about 20x slower.)
inline val copy_to_js(const uint8_t* data, size_t size) {
  val out = val::global("Uint8Array").new_(size);
  out.call<void>("set", val(emscripten::typed_memory_view(size, data)));
  return out;
}
inline val copy_to_js(const ByteBuffer& bytes) { return copy_to_js(bytes.data(), bytes.size()); }

// The stable error code js/errors.js documents for each kind of C++ failure.
inline const char* error_code(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::OutputLimit: return "ERR_OUTPUT_LIMIT";
    case ErrorKind::Unsupported: return "ERR_UNSUPPORTED";
    case ErrorKind::BadData: break;
  }
  return "ERR_BAD_DATA";
}

// Runs fn; any C++ exception is rethrown into JS as an Error carrying its message and `code`
// (an escaping C++ exception would reach JS as a bare pointer number). js/wasm.js gives it the
// format's error class. The throw is plain JS (core_bindings.cpp), not embind, so that modules
// without embind (Pco) use it too.
template <class Fn>
auto guarded(Fn&& fn) -> decltype(fn()) {
  std::string message;
  const char* code = "ERR_BAD_DATA";
  try {
    return fn();
  } catch (const std::bad_alloc&) {
    message = "out of memory while decoding";
    code = "ERR_OUTPUT_LIMIT";
  } catch (const DecodeError& e) {
    message = e.what();
    code = error_code(e.kind());
  } catch (const std::exception& e) {
    message = e.what();
  }
  numdecode_throw_js_error(message.data(), message.size(), code);
  // Not reached (the throw leaves through JS); val has no default constructor.
  if constexpr (std::is_same_v<decltype(fn()), val>) return val::undefined();
  else return decltype(fn()){};
}

}  // namespace numdecode::bindings
