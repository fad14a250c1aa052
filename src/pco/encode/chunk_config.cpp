#include "pco/encode/chunk_config.hpp"

#include <stdexcept>
#include <string>

namespace numdecode::pco {

std::vector<size_t> page_sizes(size_t n, const ChunkConfig& config) {
  if (!config.page_ns.empty()) {
    size_t sum = 0;
    for (size_t page_n : config.page_ns) {
      if (page_n == 0) throw std::invalid_argument("Pco encode: a page of 0 numbers");
      sum += page_n;
    }
    if (sum != n)
      throw std::invalid_argument("Pco encode: page sizes sum to " + std::to_string(sum) + ", not the " +
                                  std::to_string(n) + " numbers given");
    return config.page_ns;
  }
  if (n == 0) return {};
  if (config.max_page_n == 0) throw std::invalid_argument("Pco encode: the largest page must hold at least 1 number");
  // As few pages as the limit allows, their sizes differing by at most 1 (the larger first).
  // Not (n + max - 1) / max: size_t is 32 bits in wasm, and a max near 2^32 wrapped that to 0 pages.
  const size_t pages = n / config.max_page_n + (n % config.max_page_n != 0 ? 1 : 0);
  std::vector<size_t> out(pages, n / pages);
  for (size_t i = 0; i < n % pages; ++i) ++out[i];
  return out;
}

}  // namespace numdecode::pco
