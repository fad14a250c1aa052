// Pco decode throughput on the corpus's bench_* files, next to a memcpy of the same output
// size (the ceiling for any decoder that writes its output once). Output memory is reused
// across iterations, as a steady-state caller would.
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <vector>

#include "pco/standalone.hpp"

namespace {

using namespace numdecode;

const char* kFiles[] = {"bench_f64_sensor_2m.pco", "bench_i64_timestamps_2m.pco", "bench_u32_random_1500k.pco"};

std::vector<uint8_t> read_path(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

const std::vector<uint8_t>& file(const std::string& name) {
  static std::map<std::string, std::vector<uint8_t>> cache;
  auto& slot = cache[name];
  if (slot.empty()) slot = read_path(std::string(NUMDECODE_CORPUS_DIR) + "/pco/" + name);
  return slot;
}

size_t count_values(const pco::StandaloneFile& f) {
  size_t n = 0;
  for (const auto& c : f.chunks) n += c.n;
  return n;
}

void BM_PcoDecode(benchmark::State& state, std::string name) {
  const auto& bytes = file(name);
  if (bytes.empty()) return state.SkipWithError("corpus file missing");
  pco::StandaloneFile f;
  pco::read_standalone(bytes, f);
  const size_t n = count_values(f);
  for (auto _ : state) {
    pco::read_standalone(bytes, f);
    benchmark::DoNotOptimize(f.values.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(int64_t(state.iterations() * f.values.size()));
  state.counters["values/s"] = benchmark::Counter(double(state.iterations() * n), benchmark::Counter::kIsRate);
}

void BM_Memcpy(benchmark::State& state, std::string name) {
  const auto& bytes = file(name);
  if (bytes.empty()) return state.SkipWithError("corpus file missing");
  pco::StandaloneFile f = pco::read_standalone(bytes);
  const size_t n = count_values(f);
  std::vector<uint8_t> src(f.values.begin(), f.values.end()), dst(src.size());
  for (auto _ : state) {
    std::memcpy(dst.data(), src.data(), src.size());
    benchmark::DoNotOptimize(dst.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(int64_t(state.iterations() * src.size()));
  state.counters["values/s"] = benchmark::Counter(double(state.iterations() * n), benchmark::Counter::kIsRate);
}

// Many small files: per-call overhead of header and metadata parsing (bench/run.mjs splits
// it from the values' cost by comparing two sizes of the same kind of file).
void BM_PcoSmallFile(benchmark::State& state, std::string name) {
  const auto& bytes = file(name);
  if (bytes.empty()) return state.SkipWithError("corpus file missing");
  pco::StandaloneFile f;
  pco::read_standalone(bytes, f);
  const size_t n = count_values(f);
  for (auto _ : state) {
    pco::read_standalone(bytes, f);
    benchmark::DoNotOptimize(f.values.data());
  }
  state.counters["files/s"] = benchmark::Counter(double(state.iterations()), benchmark::Counter::kIsRate);
  state.counters["values/s"] = benchmark::Counter(double(state.iterations() * n), benchmark::Counter::kIsRate);
}

// Many files decoded one after another, as bench/pco-reference.mjs times its Zarr chunk cases:
// the files are named by NUMDECODE_BENCH_PCO_FILES (paths separated by ':'), the case by
// NUMDECODE_BENCH_PCO_CASE (benchmark "pco_files/<case>").
void BM_PcoFiles(benchmark::State& state, std::vector<std::vector<uint8_t>> files) {
  pco::StandaloneFile f;
  size_t n = 0;
  for (const auto& bytes : files) {
    if (bytes.empty()) return state.SkipWithError("file missing or empty");
    pco::read_standalone(bytes, f);
    n += count_values(f);
  }
  for (auto _ : state) {
    for (const auto& bytes : files) {
      pco::read_standalone(bytes, f);
      benchmark::DoNotOptimize(f.values.data());
    }
    benchmark::ClobberMemory();
  }
  state.counters["values/s"] = benchmark::Counter(double(state.iterations() * n), benchmark::Counter::kIsRate);
}

[[maybe_unused]] const bool registered = [] {
  const char* case_name = std::getenv("NUMDECODE_BENCH_PCO_CASE");
  const char* paths = std::getenv("NUMDECODE_BENCH_PCO_FILES");
  if (case_name && paths) {
    std::vector<std::vector<uint8_t>> files;
    for (std::string rest = paths; !rest.empty();) {
      const size_t colon = rest.find(':');
      files.push_back(read_path(rest.substr(0, colon)));
      rest = colon == std::string::npos ? "" : rest.substr(colon + 1);
    }
    benchmark::RegisterBenchmark((std::string("pco_files/") + case_name).c_str(), BM_PcoFiles, std::move(files))
        ->Unit(benchmark::kMillisecond);
  }
  for (const char* name : kFiles) {
    benchmark::RegisterBenchmark((std::string("pco_decode/") + name).c_str(), BM_PcoDecode, std::string(name))
        ->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark((std::string("memcpy/") + name).c_str(), BM_Memcpy, std::string(name))
        ->Unit(benchmark::kMillisecond);
  }
  for (const char* name : {"size_i32_n255.pco", "size_i32_n513.pco"})
    benchmark::RegisterBenchmark((std::string("pco_decode_small/") + name).c_str(), BM_PcoSmallFile, std::string(name))
        ->Unit(benchmark::kMicrosecond);
  return true;
}();

}  // namespace


