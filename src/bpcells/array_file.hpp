// Array files of a BPCells matrix directory.
//
// Numeric arrays: an 8-byte ASCII magic (UINT32v1, UINT64v1, FLOATSv1, DOUBLEv1) followed by
// little-endian values and nothing else; the count is (size - 8) / element size. BPCells
// silently drops a trailing partial element; we reject it. String arrays (names,
// storage_order, version) are text with one value per line, '\n' after every value, an
// optional '\r' before it (files written on Windows by BPCells <= 0.3.0).
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/bytes.hpp"

namespace numdecode::bpcells {

enum class ElemType { U32, U64, F32, F64 };

constexpr size_t kArrayHeaderBytes = 8;

const char* elem_magic(ElemType t);   // "UINT32v1", ...
size_t elem_size(ElemType t);
const char* elem_name(ElemType t);    // "uint32", ...

struct ArrayFile {
  ElemType type;
  Bytes payload;  // the values, little-endian, without the header
  uint64_t count;
};

// Checks the header against `expected` and the payload length; `name` is the file name for messages.
ArrayFile parse_array_file(Bytes file, ElemType expected, std::string_view name);

// Only the 8 header bytes (for readers that fetch ranges): throws unless they are `expected`.
void check_array_header(Bytes header, ElemType expected, std::string_view name);

template <class T>
std::vector<T> array_values(const ArrayFile& a) {
  std::vector<T> out(a.count);
  for (uint64_t i = 0; i < a.count; ++i) out[i] = load_le<T>(a.payload.data() + i * sizeof(T));
  return out;
}

// Lines of a string array file; an empty file is an empty array.
std::vector<std::string> parse_string_array(Bytes file);

}  // namespace numdecode::bpcells
