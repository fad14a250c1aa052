// Build facts for the JS loader: which kernels this module was compiled with, and the
// library version. Lets js/wasm.js (and its tests) check the module before any decoder runs.
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <string>

#include "core/simd.hpp"
#include "core/version.hpp"

using emscripten::val;

namespace {

val build_info() {
  val info = val::object();
  info.set("simd", numdecode::kSimdBuild);
  info.set("version", std::string(numdecode::version()));
  return info;
}

}  // namespace

EMSCRIPTEN_BINDINGS(core) { emscripten::function("buildInfo", &build_info); }
