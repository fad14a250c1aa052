// Parquet page helpers of the ALP module (the module a Parquet read loads; js/parquet/float-page.js
// calls them): an OPTIONAL column's definition levels read as validity, and a page's dense values
// spread around its nulls, both in wasm memory, next to the values the ALP decoder wrote there.
#include <emscripten/emscripten.h>

#include "bindings/binding_util.hpp"
#include "core/error.hpp"
#include "parquet/levels.hpp"

extern "C" {

// validity[0, count) from the levels at (ptr, len); returns how many are present.
EMSCRIPTEN_KEEPALIVE double numdecode_parquet_validity(uintptr_t ptr, size_t len, int bit_width, int max_def, size_t count,
                                                       uintptr_t validity) {
  using namespace numdecode;
  return bindings::guarded([&] {
    return double(parquet::definition_validity(bindings::heap_bytes(ptr, len), unsigned(bit_width), count, unsigned(max_def),
                                               reinterpret_cast<uint8_t*>(validity)));
  });
}

// The `dense` values at `values` (width 4 or 8) spread over `rows` rows as validity[0, rows) says.
EMSCRIPTEN_KEEPALIVE void numdecode_parquet_spread(uintptr_t values, int width, uintptr_t validity, size_t rows, size_t dense) {
  using namespace numdecode;
  bindings::guarded([&] {
    parquet::spread_nulls(reinterpret_cast<uint8_t*>(values), size_t(width), reinterpret_cast<const uint8_t*>(validity), rows, dense);
    return 0;
  });
}
}
