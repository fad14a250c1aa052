#include "pco/encode/sampling.hpp"

#include <algorithm>

namespace numdecode::pco {

namespace {

constexpr unsigned kSampleRatio[13] = {100, 84, 73, 64, 57, 52, 47, 43, 40, 35, 31, 28, 25};
constexpr double kClassicMemorizableBins = 256;

// xoroshiro128++, seeded through SplitMix64: a small fixed-seed generator.
struct Rng {
  uint64_t s0, s1;
  explicit Rng(uint64_t seed) {
    auto splitmix = [&seed] {
      uint64_t z = (seed += 0x9e3779b97f4a7c15ull);
      z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
      z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
      return z ^ (z >> 31);
    };
    s0 = splitmix();
    s1 = splitmix();
  }
  static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  uint64_t next() {
    const uint64_t r = rotl(s0 + s1, 17) + s0;
    s1 ^= s0;
    s0 = rotl(s0, 49) ^ s1 ^ (s1 << 21);
    s1 = rotl(s1, 28);
    return r;
  }
};

}  // namespace

std::vector<size_t> sample_indices(size_t n, unsigned level) {
  if (n < kMinSample) return {};
  const size_t m = kMinSample + (n - kMinSample) / kSampleRatio[std::min(level, 12u)];
  // Floyd's algorithm: m distinct indices in m draws, without touching the numbers.
  Rng rng(0);
  std::vector<uint8_t> taken((n + 7) / 8, 0);
  std::vector<size_t> out;
  out.reserve(m);
  for (size_t j = n - m; j < n; ++j) {
    const size_t t = size_t(rng.next() % (uint64_t(j) + 1));
    const size_t idx = (taken[t / 8] >> (t % 8)) & 1 ? j : t;
    taken[idx / 8] |= uint8_t(1u << (idx % 8));
    out.push_back(idx);
  }
  return out;
}

double bits_saved_per_num(std::vector<std::pair<uint64_t, double>>& samples) {
  if (samples.empty()) return 0;
  std::sort(samples.begin(), samples.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  const size_t rare = std::max<size_t>(1, size_t(double(samples.size()) / kClassicMemorizableBins));
  double saved = 0;
  for (size_t i = 0; i < samples.size();) {
    size_t j = i;
    double group = 0;
    for (; j < samples.size() && samples[j].first == samples[i].first; ++j) group += samples[j].second;
    if (j - i <= rare) saved += group;
    i = j;
  }
  return saved / double(samples.size());
}

}  // namespace numdecode::pco
