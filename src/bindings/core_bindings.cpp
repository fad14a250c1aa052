// Build facts for the JS loader, in every format's module: which format and kernels this module
// was compiled with, and the library version. Lets js/wasm/load.js (and its tests) check a module before any decoder
// runs. Plain C exports: no module uses embind.
#include <emscripten/emscripten.h>

#include <cstddef>

#include "core/simd.hpp"
#include "core/version.hpp"

// The one way C++ errors reach JS (binding_util.hpp guarded()): a JS Error with the message and
// its stable code, thrown through the wasm frames as embind's val::throw_ would.
EM_JS(void, numdecode_throw_js_error, (const char* message, size_t length, const char* code), {
  var error = new Error(UTF8ToString(message, length));
  error.code = UTF8ToString(code);
  throw error;
});

extern "C" {
EMSCRIPTEN_KEEPALIVE int numdecode_build_simd() { return numdecode::kSimdBuild ? 1 : 0; }
// NUL-terminated strings in static memory.
EMSCRIPTEN_KEEPALIVE const char* numdecode_build_version() { return numdecode::version(); }
// Which format's module this is ("pco", "alp", "bpcells"; set per module in CMakeLists.txt): a
// module given to init() for another format is refused before any decoder runs.
EMSCRIPTEN_KEEPALIVE const char* numdecode_build_format() { return NUMDECODE_WASM_FORMAT; }
}
