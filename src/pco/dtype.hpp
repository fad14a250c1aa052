// Pco number types: their standalone byte codes, names and latent widths.
#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace numdecode::pco {

// Values are the standalone format's one-byte codes.
enum class DType : uint8_t {
  U32 = 1, U64 = 2, I32 = 3, I64 = 4, F32 = 5, F64 = 6,
  U16 = 7, I16 = 8, F16 = 9, U8 = 10, I8 = 11,
};

enum class NumKind : uint8_t { Unsigned, Signed, Float };

struct DTypeInfo {
  std::string_view name;  // "u8", "f16", ...
  unsigned bits;          // also the latent width
  NumKind kind;
};

const DTypeInfo& info(DType d);
inline unsigned dtype_bits(DType d) { return info(d).bits; }
inline size_t dtype_bytes(DType d) { return info(d).bits / 8; }
inline std::string_view dtype_name(DType d) { return info(d).name; }

std::optional<DType> dtype_from_byte(uint8_t b);
std::optional<DType> dtype_from_name(std::string_view name);

}  // namespace numdecode::pco
