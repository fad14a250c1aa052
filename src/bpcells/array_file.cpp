#include "bpcells/array_file.hpp"

#include <algorithm>
#include <cstring>

#include "bpcells/file_error.hpp"
#include "core/error.hpp"

namespace numdecode::bpcells {

const char* elem_magic(ElemType t) {
  switch (t) {
    case ElemType::U32: return "UINT32v1";
    case ElemType::U64: return "UINT64v1";
    case ElemType::F32: return "FLOATSv1";
    case ElemType::F64: return "DOUBLEv1";
  }
  return "????????";
}

size_t elem_size(ElemType t) { return t == ElemType::U32 || t == ElemType::F32 ? 4 : 8; }

const char* elem_name(ElemType t) {
  switch (t) {
    case ElemType::U32: return "uint32";
    case ElemType::U64: return "uint64";
    case ElemType::F32: return "float32";
    case ElemType::F64: return "float64";
  }
  return "?";
}

namespace {

// The header bytes as text, with anything unprintable escaped, for error messages.
std::string printable(Bytes b) {
  static const char* hex = "0123456789abcdef";
  std::string s;
  for (uint8_t c : b) {
    if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\') {
      s += static_cast<char>(c);
    } else {
      s += "\\x";
      s += hex[c >> 4];
      s += hex[c & 15];
    }
  }
  return s;
}

bool equals_magic(Bytes header, const char* magic) { return std::memcmp(header.data(), magic, 8) == 0; }

}  // namespace

void check_array_header(Bytes header, ElemType expected, std::string_view name) {
  if (header.size() < kArrayHeaderBytes)
    fail_in(name, "file is ", header.size(), " bytes, shorter than the 8-byte array header");
  header = header.first(kArrayHeaderBytes);
  if (equals_magic(header, elem_magic(expected))) return;
  // BPCells writes the magic as one u64 in host order, so a big-endian writer reverses it.
  char swapped[8];
  std::reverse_copy(elem_magic(expected), elem_magic(expected) + 8, swapped);
  if (std::memcmp(header.data(), swapped, 8) == 0)
    fail_file(ErrorKind::Unsupported, name, name, "header \"", printable(header), "\" is a byte-swapped ",
              elem_magic(expected), " (big-endian files are not supported)");
  for (ElemType other : {ElemType::U32, ElemType::U64, ElemType::F32, ElemType::F64}) {
    if (equals_magic(header, elem_magic(other)))
      fail_in(name, "header is ", elem_magic(other), " (", elem_name(other),
              ") but this array must be ", elem_magic(expected), " (", elem_name(expected), ")");
  }
  fail_in(name, "header \"", printable(header), "\" is not a BPCells array header (expected ",
          elem_magic(expected), ")");
}

ArrayFile parse_array_file(Bytes file, ElemType expected, std::string_view name) {
  check_array_header(file, expected, name);
  Bytes payload = file.subspan(kArrayHeaderBytes);
  const size_t size = elem_size(expected);
  if (payload.size() % size != 0)
    fail_in(name, "payload of ", payload.size(), " bytes is not a whole number of ", size,
            "-byte ", elem_name(expected), " values (", payload.size() % size, " stray bytes)");
  return ArrayFile{expected, payload, payload.size() / size};
}

std::vector<std::string> parse_string_array(Bytes file) {
  std::vector<std::string> lines;
  size_t pos = 0;
  while (pos < file.size()) {
    const uint8_t* begin = file.data() + pos;
    const uint8_t* nl = static_cast<const uint8_t*>(std::memchr(begin, '\n', file.size() - pos));
    size_t len = nl ? static_cast<size_t>(nl - begin) : file.size() - pos;  // last line may lack '\n'
    pos += len + (nl ? 1 : 0);
    if (len > 0 && begin[len - 1] == '\r') --len;
    lines.emplace_back(reinterpret_cast<const char*>(begin), len);
  }
  return lines;
}

}  // namespace numdecode::bpcells
