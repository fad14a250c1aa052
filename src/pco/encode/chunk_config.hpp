// What an encoder is asked for, as pcodec's ChunkConfig: compression level, how to choose the
// mode and the delta encoding, and how to split numbers into pages (chunks, for standalone files).
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

namespace numdecode::pco {

constexpr unsigned kDefaultLevel = 8;
constexpr unsigned kMaxLevel = 12;
constexpr size_t kDefaultMaxPageN = size_t{1} << 18;
constexpr size_t kMaxChunkN = size_t{1} << 24;  // the standalone chunk count field: 24 bits of n - 1
constexpr unsigned kMaxConsecutiveOrder = 7;
constexpr unsigned kMaxConv1Order = 32;

struct ModeSpec {
  enum class Kind { Auto, Classic, IntMult, FloatMult, FloatQuant, Dict };
  Kind kind = Kind::Auto;
  uint64_t int_base = 0;    // IntMult, > 0
  double float_base = 0;    // FloatMult: finite and nonzero in the number's float type
  unsigned k = 0;           // FloatQuant: 1 .. the type's mantissa bits
};

struct DeltaSpec {
  enum class Kind { Auto, NoOp, Consecutive, Lookback, Conv1 };
  Kind kind = Kind::Auto;
  unsigned order = 0;  // Consecutive 1..7, Conv1 1..32 (0: NoOp, as pcodec)
};

struct ChunkConfig {
  unsigned level = kDefaultLevel;  // 0..12
  ModeSpec mode;
  DeltaSpec delta;
  // Pages of at most max_page_n numbers, as equal as possible; or exactly page_ns when given.
  size_t max_page_n = kDefaultMaxPageN;
  std::vector<size_t> page_ns;
};

// The page sizes of n numbers under config (empty for n == 0). Throws std::invalid_argument when
// exact sizes do not sum to n or one is 0.
std::vector<size_t> page_sizes(size_t n, const ChunkConfig& config);

}  // namespace numdecode::pco
