// Shared glue for the embind bindings: inputs arrive as (pointer, length) into the wasm
// heap; outputs leave as fresh JS copies; C++ errors become JS Errors with their message.
#pragma once
#include <emscripten/val.h>

#include <cstdint>
#include <exception>
#include <string>
#include <type_traits>
#include <vector>

#include "core/bytes.hpp"

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

// Runs fn; any C++ exception is rethrown into JS as an Error carrying its message
// (an escaping C++ exception would reach JS as a bare pointer number).
template <class Fn>
auto guarded(Fn&& fn) -> decltype(fn()) {
  std::string message;
  try {
    return fn();
  } catch (const std::bad_alloc&) {
    message = "out of memory while decoding";
  } catch (const std::exception& e) {
    message = e.what();
  }
  val::global("Error").new_(val(message)).throw_();
  // Not reached (throw_() leaves through JS); val has no default constructor.
  if constexpr (std::is_same_v<decltype(fn()), val>) return val::undefined();
  else return decltype(fn()){};
}

}  // namespace numdecode::bindings
