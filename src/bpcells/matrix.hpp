// A whole BPCells matrix directory decoded in memory, with stricter checks than BPCells itself
// (it accepts non-monotone idxptr, out-of-range indices and stray bytes silently).
//
// Orientation: `shape` is always the logical [nrow, ncol]. storage_order "col" is CSC
// (idxptr has ncol+1 entries, index = row numbers); "row" is CSR of the logical matrix
// (idxptr has nrow+1 entries, index = column numbers). row_names/col_names always name the
// logical rows/columns.
#pragma once
#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "bpcells/array_file.hpp"
#include "bpcells/bp128.hpp"

namespace numdecode::bpcells {

enum class ValueType { U32, F32, F64 };

struct Version {
  bool packed = false;
  ValueType value_type = ValueType::U32;
  int format = 2;  // v1: idxptr is UINT32v1 and there are no *_idx_offsets files
  std::string text;
};

// The version file: exactly one line (a '\r' before the '\n' is allowed). `name` is what errors
// call it (an HDF5 group's "/mat@version").
Version parse_version(Bytes file, std::string_view name = "version");
// Accepts exactly "col" or "row" (one line).
bool parse_storage_order_is_row(Bytes file);
// The shape file: UINT32v1 with exactly two entries [nrow, ncol].
std::array<uint32_t, 2> parse_shape(Bytes file);

const char* value_type_name(ValueType t);  // "uint32", "float32", "float64"
ElemType value_elem_type(ValueType t);

// Files a version needs (besides version, shape, storage_order and the names files).
std::vector<std::string> required_arrays(const Version& v);

// Checks idxptr: first entry 0, non-decreasing; returns nothing, throws with the position.
void check_idxptr(std::span<const uint64_t> idxptr);

struct Matrix {
  Version version;
  bool row_major = false;
  uint32_t nrow = 0, ncol = 0;
  std::vector<uint64_t> idxptr;   // outer + 1 entries
  std::vector<uint32_t> index;    // nnz
  std::vector<uint8_t> val;       // nnz little-endian values of value_type
  std::vector<std::string> row_names, col_names;

  uint64_t outer() const { return row_major ? nrow : ncol; }
  uint64_t inner() const { return row_major ? ncol : nrow; }
  uint64_t nnz() const { return idxptr.empty() ? 0 : idxptr.back(); }
};

// Returns a file's bytes, or nullopt when the directory has no such file.
using FileReader = std::function<std::optional<std::vector<uint8_t>>(const std::string& name)>;

// Reads and validates a whole matrix directory.
Matrix read_matrix(const FileReader& read_file, Kernel kernel = Kernel::Auto);

}  // namespace numdecode::bpcells
