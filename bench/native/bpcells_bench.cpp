// BPCells decode throughput: d1z (index) and m1 (val) streams, SIMD and scalar kernels,
// against a memcpy of the decoded size. Streams come from the realistic corpus matrix when
// present (20000 x 3000 counts), so the bit widths are those of real data.
#include <benchmark/benchmark.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <optional>
#include <vector>

#include "bpcells/array_file.hpp"
#include "bpcells/bp128.hpp"

using namespace numdecode;
using namespace numdecode::bpcells;
namespace fs = std::filesystem;

namespace {

struct StreamFiles {
  std::vector<uint8_t> data, idx, offsets, starts;
  uint64_t count = 0;
};

std::vector<uint8_t> slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), {});
}

const fs::path kDir = fs::path(NUMDECODE_CORPUS_DIR) / "bpcells/packed_uint_large_20000x3000/matrix";

const StreamFiles& stream(const char* prefix) {
  static std::map<std::string, StreamFiles> cache;
  auto it = cache.find(prefix);
  if (it != cache.end()) return it->second;
  StreamFiles s;
  const std::string p = prefix;
  s.data = slurp(kDir / (p + "_data"));
  s.idx = slurp(kDir / (p + "_idx"));
  s.offsets = slurp(kDir / (p + "_idx_offsets"));
  if (p == "index") s.starts = slurp(kDir / "index_starts");
  auto idxptr = slurp(kDir / "idxptr");
  if (idxptr.size() >= 16) std::memcpy(&s.count, idxptr.data() + idxptr.size() - 8, 8);
  return cache[prefix] = std::move(s);
}

// A stream's arrays parsed from its files; nullopt (and the benchmark skipped) without the corpus.
struct Stream {
  ArrayFile data, idx;
  std::vector<uint64_t> offsets;
  Bytes starts;
  uint64_t count;
};

std::optional<Stream> parsed(benchmark::State& state, const char* prefix) {
  const StreamFiles& s = stream(prefix);
  if (s.count == 0) {
    state.SkipWithError("corpus matrix packed_uint_large_20000x3000 not found");
    return std::nullopt;
  }
  return Stream{parse_array_file(s.data, ElemType::U32, "data"), parse_array_file(s.idx, ElemType::U32, "idx"),
                array_values<uint64_t>(parse_array_file(s.offsets, ElemType::U64, "offsets")),
                s.starts.empty() ? Bytes{} : parse_array_file(s.starts, ElemType::U32, "starts").payload, s.count};
}

void run(benchmark::State& state, const char* prefix, Variant v, Kernel k) {
  const auto s = parsed(state, prefix);
  if (!s) return;
  for (auto _ : state) {
    auto out = decode_stream(v, s->data.payload, s->idx.payload, s->offsets, s->starts, s->count, prefix, 0, k);
    benchmark::DoNotOptimize(out.data());
  }
  state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(s->count) * 4);  // decoded bytes
}

// The kernel alone, as the wasm bench's kernel cases run it: offsets resolved and the output
// buffer allocated once, outside the loop (decode_stream above also allocates and zeroes it).
void run_into(benchmark::State& state, const char* prefix, Variant v, Kernel k) {
  const auto s = parsed(state, prefix);
  if (!s) return;
  const std::vector<uint64_t> words = resolve_word_offsets(s->idx.payload, s->offsets, prefix);
  ChunkRun run{v, s->data.payload, words, s->starts, 0, prefix};
  std::vector<uint32_t> out(s->count);
  for (auto _ : state) {
    decode_chunks(run, 0, s->count, out.data(), 0, k);
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(s->count) * 4);  // decoded bytes
}

void BM_d1z_index_simd(benchmark::State& st) { run(st, "index", Variant::D1Z, Kernel::Auto); }
void BM_d1z_index_simd_into(benchmark::State& st) { run_into(st, "index", Variant::D1Z, Kernel::Auto); }
void BM_m1_val_simd_into(benchmark::State& st) { run_into(st, "val", Variant::M1, Kernel::Auto); }
void BM_d1z_index_scalar(benchmark::State& st) { run(st, "index", Variant::D1Z, Kernel::Scalar); }
void BM_m1_val_simd(benchmark::State& st) { run(st, "val", Variant::M1, Kernel::Auto); }
void BM_m1_val_scalar(benchmark::State& st) { run(st, "val", Variant::M1, Kernel::Scalar); }

void BM_memcpy_same_size(benchmark::State& state) {
  const uint64_t count = stream("val").count;
  std::vector<uint32_t> src(count ? count : 1, 7), dst(src.size());
  for (auto _ : state) {
    std::memcpy(dst.data(), src.data(), src.size() * 4);
    benchmark::DoNotOptimize(dst.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(src.size()) * 4);
}

// Single-chunk kernel per width, to show the cost of the transform by itself.
void BM_chunk_d1z(benchmark::State& state) {
  const unsigned bits = static_cast<unsigned>(state.range(0));
  const Kernel k = state.range(1) ? Kernel::Simd : Kernel::Scalar;
  if (k == Kernel::Simd && !simd_kernels_available()) {
    state.SkipWithError("no SIMD kernels in this build");
    return;
  }
  std::vector<uint8_t> in(16 * 32, 0x5a);
  alignas(16) uint32_t out[128];
  for (auto _ : state) {
    unpack_chunk(Variant::D1Z, bits, in.data(), 3, out, k);
    benchmark::DoNotOptimize(out);
  }
  state.SetBytesProcessed(int64_t(state.iterations()) * 512);
}

}  // namespace

BENCHMARK(BM_d1z_index_simd);
BENCHMARK(BM_d1z_index_simd_into);
BENCHMARK(BM_m1_val_simd_into);
BENCHMARK(BM_d1z_index_scalar);
BENCHMARK(BM_m1_val_simd);
BENCHMARK(BM_m1_val_scalar);
BENCHMARK(BM_memcpy_same_size);
BENCHMARK(BM_chunk_d1z)->ArgsProduct({{1, 5, 12, 31}, {0, 1}});

