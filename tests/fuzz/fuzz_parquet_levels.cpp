// libFuzzer target: arbitrary bytes as a Parquet page's definition levels (first byte: maximum
// level, next two: the level count), then the values spread around the nulls they give.
// Checks: no crash / out-of-bounds access (ASan), the present count matches the validity, and the
// in-place spread matches an out-of-place one.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "core/error.hpp"
#include "parquet/levels.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace numdecode;
  if (size < 3) return 0;
  const unsigned max_def = 1 + data[0] % 255;
  const unsigned bit_width = 32 - __builtin_clz(max_def);
  const size_t count = data[1] | size_t(data[2]) << 8;
  std::vector<uint8_t> valid(count);
  size_t present;
  try {
    present = parquet::definition_validity(Bytes(data + 3, size - 3), bit_width, count, max_def, valid.data());
  } catch (const DecodeError&) {
    return 0;
  }
  size_t ones = 0;
  for (uint8_t v : valid) {
    if (v > 1) std::abort();
    ones += v;
  }
  if (ones != present) std::abort();
  std::vector<uint8_t> values(count * 8);
  for (size_t i = 0; i < present * 8; ++i) values[i] = uint8_t(i * 131 + 7);
  std::vector<uint8_t> want(count * 8, 0);
  for (size_t i = 0, k = 0; i < count; ++i) {
    if (valid[i]) std::memcpy(&want[i * 8], &values[k++ * 8], 8);
  }
  parquet::spread_nulls(values.data(), 8, valid.data(), count, present);
  if (count && std::memcmp(values.data(), want.data(), count * 8) != 0) std::abort();
  return 0;
}
