#include "pco/dtype.hpp"

namespace numdecode::pco {

namespace {
constexpr DTypeInfo kInfos[12] = {
    {"?", 0, NumKind::Unsigned},   // 0: no type
    {"u32", 32, NumKind::Unsigned}, {"u64", 64, NumKind::Unsigned},
    {"i32", 32, NumKind::Signed},   {"i64", 64, NumKind::Signed},
    {"f32", 32, NumKind::Float},    {"f64", 64, NumKind::Float},
    {"u16", 16, NumKind::Unsigned}, {"i16", 16, NumKind::Signed},
    {"f16", 16, NumKind::Float},    {"u8", 8, NumKind::Unsigned},
    {"i8", 8, NumKind::Signed},
};
}  // namespace

const DTypeInfo& info(DType d) { return kInfos[static_cast<uint8_t>(d)]; }

std::optional<DType> dtype_from_byte(uint8_t b) {
  if (b >= 1 && b <= 11) return static_cast<DType>(b);
  return std::nullopt;
}

std::optional<DType> dtype_from_name(std::string_view name) {
  for (uint8_t b = 1; b <= 11; ++b)
    if (kInfos[b].name == name) return static_cast<DType>(b);
  return std::nullopt;
}

}  // namespace numdecode::pco
