// Shared glue for the bindings (plain C exports): inputs arrive as (pointer, length) into the
// wasm heap; results stay in wasm memory for JS to read; C++ errors become JS Errors with their
// message and code.
#pragma once
#include <cstdint>
#include <exception>
#include <string>
#include <type_traits>

#include "core/bytes.hpp"
#include "core/error.hpp"

// Throws a JS Error with the UTF-8 message (ptr, length) and err.code = code (core_bindings.cpp).
extern "C" void numdecode_throw_js_error(const char* message, size_t length, const char* code);

namespace numdecode::bindings {

inline Bytes heap_bytes(uintptr_t ptr, size_t len) { return {reinterpret_cast<const uint8_t*>(ptr), len}; }

// Text for JS (JSON, read by js/wasm/heap.js textAt): kept until the next call that returns text.
inline const char* text_result(std::string text) {
  static std::string kept;
  kept = std::move(text);
  return kept.c_str();
}

// Bytes for JS to copy out ({ptr, size}, read by js/wasm/heap.js bytesAt): kept where the decoder or
// encoder left them, one buffer per buffer type, until the next call that returns that type.
struct BytesResult {
  uint32_t ptr;
  uint32_t size;
};
template <class Buffer>
Buffer& kept() {
  static Buffer buffer;
  return buffer;
}
template <class Buffer>
const BytesResult* bytes_result(Buffer&& buffer) {
  static BytesResult result;
  Buffer& held = kept<std::remove_cvref_t<Buffer>>() = std::move(buffer);
  result = {uint32_t(reinterpret_cast<uintptr_t>(held.data())), uint32_t(held.size() * sizeof(held[0]))};
  return &result;
}

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
// (an escaping C++ exception would reach JS as a bare pointer number). js/wasm/call.js gives it the
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
  return decltype(fn()){};  // not reached: the throw leaves through JS
}

}  // namespace numdecode::bindings
