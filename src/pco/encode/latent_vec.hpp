// The encoder's arrays of latents: as long as a chunk, and always filled after they are sized, so
// not zero-filled first (DefaultInitAllocator).
#pragma once
#include <vector>

#include "core/bytes.hpp"

namespace numdecode::pco {

template <class T>
using LatentVec = std::vector<T, DefaultInitAllocator<T>>;

}  // namespace numdecode::pco
