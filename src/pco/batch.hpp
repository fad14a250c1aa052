// What every step of a page's decode shares: numbers go through in batches of kBatch.
#pragma once
#include <cstddef>

namespace numdecode::pco {

constexpr size_t kBatch = 256;

}  // namespace numdecode::pco

// Keeps a scalar loop scalar (clang): where V8's 64-bit lanes are slower than scalar code.
#if defined(__clang__)
#define NUMDECODE_NO_VECTORIZE _Pragma("clang loop vectorize(disable) interleave(disable)")
#else
#define NUMDECODE_NO_VECTORIZE
#endif
