// libFuzzer target for BPCells: every BP-128 variant on arbitrary bytes (SIMD vs scalar must
// agree bit for bit), the stream decoder on arbitrary tables, the array-file header parser,
// the small text files and the whole-matrix reader on arbitrary directories.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "bpcells/array_file.hpp"
#include "bpcells/bp128.hpp"
#include "bpcells/matrix.hpp"
#include "core/error.hpp"

using namespace numdecode;
using namespace numdecode::bpcells;

namespace {

constexpr Variant kVariants[] = {Variant::Plain, Variant::M1, Variant::D1, Variant::D1Z};

uint32_t take_u32(const uint8_t*& p, size_t& n) {
  uint32_t v = 0;
  const size_t k = n < 4 ? n : 4;
  std::memcpy(&v, p, k);
  p += k;
  n -= k;
  return v;
}

// Splits the input into `parts` byte ranges whose lengths come from the input itself.
std::vector<Bytes> split(const uint8_t* p, size_t n, size_t parts) {
  std::vector<Bytes> out;
  for (size_t i = 0; i + 1 < parts; ++i) {
    const size_t len = n == 0 ? 0 : take_u32(p, n) % (n + 1);
    out.emplace_back(p, len);
    p += len;
    n -= len;
  }
  out.emplace_back(p, n);
  return out;
}

void chunk_differential(const uint8_t* p, size_t n) {
  if (n < 2) return;
  const Variant v = kVariants[p[0] % 4];
  const unsigned bits = p[1] % 33;
  p += 2;
  n -= 2;
  const uint32_t start = take_u32(p, n);
  const size_t need = 16 * bits;
  if (n < need) return;
  std::vector<uint8_t> words(p, p + need);  // exactly the chunk: ASan catches any over-read
  uint32_t a[128], b[128];
  unpack_chunk(v, bits, words.data(), start, a, Kernel::Scalar);
  if (!simd_kernels_available()) return;
  unpack_chunk(v, bits, words.data(), start, b, Kernel::Simd);
  if (std::memcmp(a, b, sizeof a) != 0) std::abort();
}

void stream(const uint8_t* p, size_t n) {
  if (n < 5) return;
  const Variant v = kVariants[p[0] % 4];
  p += 1;
  n -= 1;
  const uint64_t count = take_u32(p, n) % 100000;
  auto parts = split(p, n, 4);
  std::vector<uint64_t> offsets;
  for (size_t i = 0; i + 8 <= parts[3].size(); i += 8) offsets.push_back(load_le<uint64_t>(parts[3].data() + i));
  if (offsets.size() < 2) offsets = {0, UINT64_MAX};
  // Copy each table so that it ends exactly where the input says.
  std::vector<uint8_t> data(parts[0].begin(), parts[0].end()), idx(parts[1].begin(), parts[1].end()),
      starts(parts[2].begin(), parts[2].end());
  std::vector<uint32_t> a, b;
  bool failed_a = false, failed_b = false;
  try {
    a = decode_stream(v, data, idx, offsets, starts, count, "fuzz", 0, Kernel::Scalar);
  } catch (const DecodeError&) {
    failed_a = true;
  }
  try {
    b = decode_stream(v, data, idx, offsets, starts, count, "fuzz", 0, Kernel::Auto);
  } catch (const DecodeError&) {
    failed_b = true;
  }
  if (failed_a != failed_b || a != b) std::abort();
}

void files(const uint8_t* p, size_t n) {
  if (n < 1) return;
  const ElemType t = static_cast<ElemType>(p[0] % 4);
  std::vector<uint8_t> file(p + 1, p + n);
  try {
    ArrayFile a = parse_array_file(file, t, "fuzz");
    if (a.count * elem_size(t) != a.payload.size()) std::abort();
  } catch (const DecodeError&) {
  }
  try { parse_version(file); } catch (const DecodeError&) {}
  try { parse_storage_order_is_row(file); } catch (const DecodeError&) {}
  try { parse_shape(file); } catch (const DecodeError&) {}
  (void)parse_string_array(file);
}

void matrix(const uint8_t* p, size_t n) {
  // A directory of the 15 names a matrix can use; the first byte picks the version file.
  static const char* kNames[] = {"idxptr", "shape", "storage_order", "row_names", "col_names",
                                 "index", "val", "index_data", "index_idx", "index_idx_offsets",
                                 "index_starts", "val_data", "val_idx", "val_idx_offsets"};
  static const char* kVersions[] = {"packed-uint-matrix-v2\n", "packed-float-matrix-v2\n",
                                    "packed-double-matrix-v1\n", "unpacked-uint-matrix-v2\n",
                                    "unpacked-double-matrix-v1\n", "packed-uint-matrix-v1\n"};
  if (n < 1) return;
  std::map<std::string, std::vector<uint8_t>> dir;
  const char* ver = kVersions[p[0] % 6];
  dir["version"] = std::vector<uint8_t>(ver, ver + std::strlen(ver));
  auto parts = split(p + 1, n - 1, 14);
  for (size_t i = 0; i < 14; ++i) dir[kNames[i]] = std::vector<uint8_t>(parts[i].begin(), parts[i].end());
  try {
    read_matrix([&](const std::string& name) -> std::optional<std::vector<uint8_t>> {
      auto it = dir.find(name);
      if (it == dir.end()) return std::nullopt;
      return it->second;
    });
  } catch (const DecodeError&) {
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  switch (data[0] % 4) {
    case 0: chunk_differential(data + 1, size - 1); break;
    case 1: stream(data + 1, size - 1); break;
    case 2: files(data + 1, size - 1); break;
    case 3: matrix(data + 1, size - 1); break;
  }
  return 0;
}
