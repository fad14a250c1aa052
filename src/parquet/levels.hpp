// An OPTIONAL column's page in a Parquet file: its definition levels (the RLE / bit-packed hybrid)
// read as validity, and its dense values spread over its rows around the nulls. In JS these two
// steps took a fifth of a read of a column with 1 % nulls (js/parquet/levels.js keeps a JS twin of
// the levels for inspect(), pages handed out whole, and pages too large for the wasm scratch).
#pragma once
#include <cstddef>
#include <cstdint>

#include "core/bytes.hpp"

namespace numdecode::parquet {

// The `count` definition levels of `bit_width` bits (1 to 8) in `runs`, as validity: valid[i] = 1
// where level i is max_def, 0 where it is below. Returns how many are present. Checked as read:
// a DecodeError says where the runs stop fitting their bytes or the count, or which level passes
// max_def (the same words as js/parquet/levels.js).
size_t definition_validity(Bytes runs, unsigned bit_width, size_t count, unsigned max_def, uint8_t* valid);

// The `dense` values at the start of `values` (`width` bytes each: 4 or 8) moved in place to the
// rows of valid[0, rows) that are 1 (the others 0), and 0 written at the others. A width other than
// 4 or 8, or a dense count other than the number of 1s, is a DecodeError (nothing is moved).
void spread_nulls(uint8_t* values, size_t width, const uint8_t* valid, size_t rows, size_t dense);

}  // namespace numdecode::parquet
