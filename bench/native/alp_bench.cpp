// ALP decode/encode throughput on the corpus's large pages, next to a memcpy of the same output
// size (the ceiling for any decoder that writes its output once).
#include <benchmark/benchmark.h>

#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "alp/alp.hpp"

namespace {

using namespace numdecode;
using namespace numdecode::alp;

const std::string kAlpDir = std::string(NUMDECODE_CORPUS_DIR) + "/alp/";
const char* kF32Page = "f32_bench_price2_n4194304.alp";
const char* kF64Page = "f64_bench_sensor3_n2097152.alp";

const std::vector<uint8_t>& page(const char* name) {
  static std::vector<uint8_t> f32, f64;
  std::vector<uint8_t>& slot = std::strcmp(name, kF32Page) == 0 ? f32 : f64;
  if (slot.empty()) {
    std::ifstream in(kAlpDir + name, std::ios::binary);
    slot.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  return slot;
}

// Decodes the page into one preallocated buffer (validation included, allocation excluded), the
// way the wasm binding does (decode_range_streaming), so that wasm and native time the same code.
template <class T>
void BM_Decode(benchmark::State& state, const char* name, Kernel kernel) {
  const std::vector<uint8_t>& bytes = page(name);
  if (bytes.empty()) return state.SkipWithError("corpus page missing");
  const PageReader<T> reader{Bytes(bytes)};
  std::vector<T> out(reader.size());
  for (auto _ : state) {
    reader.decode_range_streaming(0, reader.size(), out.data(), kernel);
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * out.size() * sizeof(T)));
  state.counters["values/s"] = benchmark::Counter(static_cast<double>(state.iterations() * out.size()),
                                                  benchmark::Counter::kIsRate);
}

// Checks every vector of the page and decodes nothing (what alp.decodeInto runs before decoding a
// page of several pieces into the caller's array).
template <class T>
void BM_Check(benchmark::State& state, const char* name) {
  const std::vector<uint8_t>& bytes = page(name);
  if (bytes.empty()) return state.SkipWithError("corpus page missing");
  const PageReader<T> reader{Bytes(bytes)};
  for (auto _ : state) reader.check_range(0, reader.size());
  state.counters["vectors/s"] = benchmark::Counter(static_cast<double>(state.iterations() * reader.num_vectors()),
                                                   benchmark::Counter::kIsRate);
}

template <class T>
void BM_Memcpy(benchmark::State& state, const char* name) {
  const std::vector<uint8_t>& bytes = page(name);
  if (bytes.empty()) return state.SkipWithError("corpus page missing");
  const size_t n = PageReader<T>(Bytes(bytes)).size();
  std::vector<T> src(n, T(1)), dst(n);
  for (auto _ : state) {
    std::memcpy(dst.data(), src.data(), n * sizeof(T));
    benchmark::DoNotOptimize(dst.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * n * sizeof(T)));
}

template <class T>
void BM_Encode(benchmark::State& state, const char* name) {
  const std::vector<uint8_t>& bytes = page(name);
  if (bytes.empty()) return state.SkipWithError("corpus page missing");
  const ValueVector<T> values = PageReader<T>(Bytes(bytes)).decode_all();
  size_t encoded_size = 0;
  for (auto _ : state) {
    const std::vector<uint8_t> out = encode<T>(std::span<const T>(values));
    encoded_size = out.size();
    benchmark::DoNotOptimize(out.data());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * values.size() * sizeof(T)));
  state.counters["ratio"] = static_cast<double>(encoded_size) / static_cast<double>(values.size() * sizeof(T));
}

// BENCHMARK_CAPTURE cannot take a template-id, hence the named instantiations.
void BM_DecodeF32(benchmark::State& s, const char* name, Kernel k) { BM_Decode<float>(s, name, k); }
void BM_DecodeF64(benchmark::State& s, const char* name, Kernel k) { BM_Decode<double>(s, name, k); }
void BM_CheckF32(benchmark::State& s, const char* name) { BM_Check<float>(s, name); }
void BM_CheckF64(benchmark::State& s, const char* name) { BM_Check<double>(s, name); }
void BM_MemcpyF32(benchmark::State& s, const char* name) { BM_Memcpy<float>(s, name); }
void BM_MemcpyF64(benchmark::State& s, const char* name) { BM_Memcpy<double>(s, name); }
void BM_EncodeF32(benchmark::State& s, const char* name) { BM_Encode<float>(s, name); }
void BM_EncodeF64(benchmark::State& s, const char* name) { BM_Encode<double>(s, name); }

BENCHMARK_CAPTURE(BM_DecodeF32, price2_simd, kF32Page, Kernel::kAuto)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_DecodeF32, price2_scalar, kF32Page, Kernel::kScalar)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_MemcpyF32, price2_output_size, kF32Page)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_DecodeF64, sensor3_simd, kF64Page, Kernel::kAuto)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_DecodeF64, sensor3_scalar, kF64Page, Kernel::kScalar)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_MemcpyF64, sensor3_output_size, kF64Page)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_CheckF32, price2, kF32Page)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_CheckF64, sensor3, kF64Page)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_EncodeF32, price2, kF32Page)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_EncodeF64, sensor3, kF64Page)->Unit(benchmark::kMillisecond);

}  // namespace
