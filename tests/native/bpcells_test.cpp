// BPCells: BP-128 kernels (SIMD vs scalar vs a bit-by-bit reference written here), array
// files, version strings, and every corpus directory decoded against its expected arrays.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "bpcells/array_file.hpp"
#include "bpcells/bp128.hpp"
#include "bpcells/file_error.hpp"
#include "bpcells/matrix.hpp"
#include "core/error.hpp"
#include "core/simd.hpp"
#include "corpus.hpp"

namespace fs = std::filesystem;
using namespace numdecode;
using namespace numdecode::bpcells;

namespace {

constexpr Variant kVariants[] = {Variant::Plain, Variant::M1, Variant::D1, Variant::D1Z};

// ---- reference codec, written from the layout description only, one bit at a time ----------

// Bit `bit` of lane stream `lane` lives in word 4*(bit/32)+lane, at bit bit%32.
std::vector<uint32_t> ref_pack_bits(const std::vector<uint32_t>& values, unsigned bits) {
  std::vector<uint32_t> words(4 * bits, 0);
  for (unsigned n = 0; n < 128; ++n) {
    const unsigned lane = n % 4, slot = n / 4;
    for (unsigned b = 0; b < bits; ++b) {
      if ((values[n] >> b) & 1) {
        const unsigned p = slot * bits + b;
        words[4 * (p / 32) + lane] |= 1u << (p % 32);
      }
    }
  }
  return words;
}

std::vector<uint32_t> ref_unpack(Variant v, unsigned bits, const std::vector<uint32_t>& words, uint32_t start) {
  std::vector<uint32_t> x(128, 0);
  if (bits == 32) return std::vector<uint32_t>(words.begin(), words.begin() + 128);  // raw, untransformed
  for (unsigned n = 0; n < 128; ++n) {
    const unsigned lane = n % 4, slot = n / 4;
    for (unsigned b = 0; b < bits; ++b) {
      const unsigned p = slot * bits + b;
      if ((words[4 * (p / 32) + lane] >> (p % 32)) & 1) x[n] |= 1u << b;
    }
  }
  uint32_t acc = start;
  for (unsigned n = 0; n < 128; ++n) {
    switch (v) {
      case Variant::Plain: break;
      case Variant::M1: x[n] = x[n] + 1; break;
      case Variant::D1: acc = acc + x[n]; x[n] = acc; break;
      case Variant::D1Z: {
        const int64_t d = (x[n] & 1) ? -static_cast<int64_t>(x[n] >> 1) - 1 : static_cast<int64_t>(x[n] >> 1);
        acc = static_cast<uint32_t>(acc + static_cast<uint32_t>(d));
        x[n] = acc;
        break;
      }
    }
  }
  return x;
}

// BPCells' encoder rules: transform, width = bits of the OR, width 32 stores the raw input.
struct Encoded {
  unsigned bits;
  std::vector<uint32_t> words;
  uint32_t start;
};
Encoded ref_encode(Variant v, const std::vector<uint32_t>& x) {
  std::vector<uint32_t> t(128);
  for (unsigned n = 0; n < 128; ++n) {
    switch (v) {
      case Variant::Plain: t[n] = x[n]; break;
      case Variant::M1: t[n] = x[n] - 1; break;
      case Variant::D1: t[n] = x[n] - (n ? x[n - 1] : x[0]); break;
      case Variant::D1Z: {
        const int32_t d = static_cast<int32_t>(x[n] - (n ? x[n - 1] : x[0]));
        t[n] = d >= 0 ? 2u * static_cast<uint32_t>(d) : 2u * static_cast<uint32_t>(-(d + 1)) + 1u;
        break;
      }
    }
  }
  uint32_t all = 0;
  for (uint32_t y : t) all |= y;
  unsigned bits = 0;
  while (bits < 32 && (all >> bits) != 0) ++bits;
  if (bits == 32) return {32, x, x[0]};
  return {bits, ref_pack_bits(t, bits), x[0]};
}

std::vector<uint8_t> to_bytes(const std::vector<uint32_t>& w) {
  std::vector<uint8_t> b(w.size() * 4);
  if (!w.empty()) std::memcpy(b.data(), w.data(), b.size());
  return b;
}

std::vector<uint32_t> run_kernel(Variant v, unsigned bits, const std::vector<uint32_t>& words, uint32_t start,
                                 Kernel k) {
  const std::vector<uint8_t> bytes = to_bytes(words);
  std::vector<uint32_t> out(128, 0xDEADBEEF);
  unpack_chunk(v, bits, bytes.data(), start, out.data(), k);
  return out;
}

// Random values that need exactly `bits` bits (top bit set somewhere) - for packing.
std::vector<uint32_t> random_width_values(std::mt19937& rng, unsigned bits) {
  std::vector<uint32_t> x(128, 0);
  if (bits == 0) return x;
  const uint32_t mask = bits == 32 ? 0xFFFFFFFFu : (1u << bits) - 1;
  for (auto& y : x) y = rng() & mask;
  x[rng() % 128] |= 1u << (bits - 1);
  return x;
}

}  // namespace

// ---- kernels -------------------------------------------------------------------------------

TEST(BpcellsKernels, EveryWidthAndVariantSimdScalarAndReferenceAgree) {
  std::mt19937 rng(1234);
  for (Variant v : kVariants) {
    for (unsigned bits = 0; bits <= 32; ++bits) {
      for (int trial = 0; trial < 4; ++trial) {
        // Arbitrary words (not only well-formed packings): every bit matters, also in the
        // words of straddling values, so the kernels must agree on any input.
        std::vector<uint32_t> words(std::max(4 * bits, 128u));
        for (auto& w : words) w = rng();
        const uint32_t start = rng();
        const auto ref = ref_unpack(v, bits, words, start);
        SCOPED_TRACE(std::string(variant_name(v)) + " bits=" + std::to_string(bits));
        EXPECT_EQ(run_kernel(v, bits, words, start, Kernel::Scalar), ref);
        if (simd_kernels_available()) { EXPECT_EQ(run_kernel(v, bits, words, start, Kernel::Simd), ref); }
        EXPECT_EQ(run_kernel(v, bits, words, start, Kernel::Auto), ref);
      }
    }
  }
}

TEST(BpcellsKernels, SimdKernelsArePresentInThisBuild) {
#if NUMDECODE_SIMD
  EXPECT_TRUE(simd_kernels_available());
#else
  EXPECT_FALSE(simd_kernels_available());
  std::vector<uint32_t> words(4, 0);
  EXPECT_THROW(run_kernel(Variant::Plain, 1, words, 0, Kernel::Simd), DecodeError);
#endif
}

TEST(BpcellsKernels, PackedWidthsRoundTripPlainAndM1) {
  std::mt19937 rng(99);
  for (unsigned bits = 0; bits <= 32; ++bits) {
    const auto raw = random_width_values(rng, bits);
    // Plain: the width is exactly `bits`.
    Encoded e = ref_encode(Variant::Plain, raw);
    ASSERT_EQ(e.bits, bits);
    EXPECT_EQ(run_kernel(Variant::Plain, e.bits, e.words, 0, Kernel::Scalar), raw);
    if (simd_kernels_available()) { EXPECT_EQ(run_kernel(Variant::Plain, e.bits, e.words, 0, Kernel::Simd), raw); }
    // M1 of raw+1 has the same width unless raw+1 wraps to 0 (then the chunk goes raw, 32 bits).
    std::vector<uint32_t> plus1(raw);
    for (auto& y : plus1) y += 1;
    Encoded m = ref_encode(Variant::M1, plus1);
    EXPECT_EQ(m.bits, bits == 32 ? 32u : bits) << bits;
    EXPECT_EQ(run_kernel(Variant::M1, m.bits, m.words, 0, Kernel::Scalar), plus1);
    if (simd_kernels_available()) { EXPECT_EQ(run_kernel(Variant::M1, m.bits, m.words, 0, Kernel::Simd), plus1); }
  }
}

TEST(BpcellsKernels, DeltaVariantsRoundTripSortedAndUnsortedRuns) {
  std::mt19937 rng(7);
  for (unsigned step_bits = 0; step_bits <= 31; ++step_bits) {
    std::vector<uint32_t> sorted(128), mixed(128);
    uint32_t acc = rng();
    uint32_t acc2 = rng() % 1000000;
    for (unsigned n = 0; n < 128; ++n) {
      const uint32_t step = step_bits ? rng() & ((1u << step_bits) - 1) : 0;
      sorted[n] = acc += step;
      // Column restarts: the index drops back now and then (negative deltas -> zigzag odd).
      mixed[n] = (n % 37 == 36) ? (acc2 = acc2 / 2) : (acc2 += step);
    }
    for (Variant v : {Variant::D1, Variant::D1Z}) {
      for (const auto* x : {&sorted, &mixed}) {
        Encoded e = ref_encode(v, *x);
        SCOPED_TRACE(std::string(variant_name(v)) + " step_bits=" + std::to_string(step_bits));
        EXPECT_EQ(run_kernel(v, e.bits, e.words, e.start, Kernel::Scalar), *x);
        if (simd_kernels_available()) { EXPECT_EQ(run_kernel(v, e.bits, e.words, e.start, Kernel::Simd), *x); }
      }
    }
  }
}

TEST(BpcellsKernels, ZeroWidthAppliesTheTransformAndWidth32IsRaw) {
  const std::vector<uint32_t> none;
  for (Kernel k : {Kernel::Scalar, Kernel::Auto}) {
    EXPECT_EQ(run_kernel(Variant::Plain, 0, none, 5, k), std::vector<uint32_t>(128, 0));
    EXPECT_EQ(run_kernel(Variant::M1, 0, none, 5, k), std::vector<uint32_t>(128, 1));
    EXPECT_EQ(run_kernel(Variant::D1, 0, none, 5, k), std::vector<uint32_t>(128, 5));
    EXPECT_EQ(run_kernel(Variant::D1Z, 0, none, 77, k), std::vector<uint32_t>(128, 77));
    std::vector<uint32_t> raw(128);
    for (unsigned i = 0; i < 128; ++i) raw[i] = 0xFFFFFFF0u - 3 * i;
    for (Variant v : kVariants) EXPECT_EQ(run_kernel(v, 32, raw, 123, k), raw) << variant_name(v);
  }
}

// Worked examples from BPCells files (notes: mini_mat_lf index_data and the 5x3 matrix).
TEST(BpcellsKernels, KnownChunksFromBpcellsOutput) {
  std::vector<uint32_t> words(12, 0);
  words[0] = 0x10; words[1] = 0x12; words[2] = 0x1c; words[3] = 0x21;
  auto x = run_kernel(Variant::D1Z, 3, words, 0, Kernel::Auto);
  EXPECT_EQ(std::vector<uint32_t>(x.begin(), x.begin() + 8), (std::vector<uint32_t>{0, 1, 3, 2, 3, 4, 2, 4}));
  EXPECT_EQ(std::vector<uint32_t>(x.begin() + 8, x.end()), std::vector<uint32_t>(120, 4));

  std::vector<uint32_t> w2(12, 0);
  w2[0] = 0x20; w2[1] = 0x04; w2[2] = 0x05; w2[3] = 0x04;
  auto rows = run_kernel(Variant::D1Z, 3, w2, 1, Kernel::Auto);
  EXPECT_EQ(std::vector<uint32_t>(rows.begin(), rows.begin() + 5), (std::vector<uint32_t>{1, 3, 0, 2, 4}));

  // val m1 [1,2,3,4,5,5...]: stored 0,1,2,3,4,4,... lane 0 = 0, 4, 4, 4, ... -> 0x24924920.
  auto vals = ref_encode(Variant::M1, [] {
    std::vector<uint32_t> v(128, 5);
    for (unsigned i = 0; i < 5; ++i) v[i] = i + 1;
    return v;
  }());
  ASSERT_EQ(vals.bits, 3u);
  EXPECT_EQ(vals.words[0], 0x24924920u);
  auto back = run_kernel(Variant::M1, 3, vals.words, 0, Kernel::Auto);
  EXPECT_EQ(std::vector<uint32_t>(back.begin(), back.begin() + 6), (std::vector<uint32_t>{1, 2, 3, 4, 5, 5}));
}

TEST(BpcellsKernels, WidthAbove32IsRejected) {
  std::vector<uint8_t> bytes(4 * 33 * 4, 0);
  uint32_t out[128];
  try {
    unpack_chunk(Variant::M1, 33, bytes.data(), 0, out);
    FAIL() << "no error";
  } catch (const DecodeError& e) {
    EXPECT_NE(std::string(e.what()).find("bit width 33 exceeds 32"), std::string::npos) << e.what();
  }
}

// ---- streams -------------------------------------------------------------------------------

namespace {

struct Stream {
  std::vector<uint32_t> data, idx, starts;
};

Stream encode_stream(Variant v, const std::vector<uint32_t>& values) {
  Stream s;
  s.idx.push_back(0);
  for (size_t c = 0; c * 128 < values.size(); ++c) {
    std::vector<uint32_t> chunk(128);
    for (size_t i = 0; i < 128; ++i) {
      const size_t at = std::min(c * 128 + i, values.size() - 1);  // pad by repeating the last value
      chunk[i] = values[at];
    }
    Encoded e = ref_encode(v, chunk);
    s.data.insert(s.data.end(), e.words.begin(), e.words.end());
    s.idx.push_back(static_cast<uint32_t>(s.data.size()));
    s.starts.push_back(chunk[0]);
  }
  return s;
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const DecodeError& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace

TEST(BpcellsStreams, WholeStreamAndEveryPartialRangeDecode) {
  std::mt19937 rng(5);
  std::vector<uint32_t> values(1000);
  for (size_t i = 0; i < values.size(); ++i) values[i] = (i % 300 < 150) ? rng() % 50 + 1 : rng() % 3000000 + 1;
  values[400] = 0;            // m1 chunk 3 goes raw (0 - 1 wraps)
  values[777] = 0xFFFFFFFFu;  // and chunk 6
  for (Variant v : kVariants) {
    Stream s = encode_stream(v, values);
    const std::vector<uint64_t> offsets = {0, s.idx.size()};
    for (Kernel k : {Kernel::Scalar, Kernel::Auto}) {
      auto out = decode_stream(v, to_bytes(s.data), to_bytes(s.idx), offsets, to_bytes(s.starts), values.size(),
                               "val", 0, k);
      EXPECT_EQ(out, values) << variant_name(v);
    }
    // A run of chunks c0..c1 as a range reader fetches them: data from idx[c0], offsets rebased.
    const std::vector<uint8_t> all_data = to_bytes(s.data);
    for (auto [lo, hi] : std::vector<std::pair<size_t, size_t>>{{0, 1}, {127, 129}, {128, 256}, {300, 999},
                                                                 {999, 1000}, {0, 1000}, {500, 500}}) {
      const size_t c0 = lo / 128, c1 = hi == lo ? c0 + 1 : (hi - 1) / 128 + 1;
      std::vector<uint64_t> rel;
      for (size_t c = c0; c <= c1; ++c) rel.push_back(s.idx[c] - s.idx[c0]);
      Bytes data(all_data.data() + 4 * s.idx[c0], 4 * (s.idx[c1] - s.idx[c0]));
      Bytes starts(reinterpret_cast<const uint8_t*>(s.starts.data() + c0), 4 * (c1 - c0));
      std::vector<uint32_t> out(hi - lo);
      ChunkRun run{v, data, rel, starts, c0, "val"};
      decode_chunks(run, lo - 128 * c0, hi - lo, out.data());
      EXPECT_EQ(out, std::vector<uint32_t>(values.begin() + lo, values.begin() + hi)) << lo << ".." << hi;
    }
  }
}

TEST(BpcellsStreams, IdxOffsetsAdd2To32PerSegment) {
  // idx = [0, 8, 16, 4, 12] with idx_offsets [0, 3, 5]: entries 3,4 lie past the 2^32 boundary.
  const std::vector<uint32_t> idx = {0, 8, 16, 4, 12};
  auto abs = resolve_word_offsets(to_bytes(idx), std::vector<uint64_t>{0, 3, 5}, "index");
  EXPECT_EQ(abs, (std::vector<uint64_t>{0, 8, 16, (1ull << 32) + 4, (1ull << 32) + 12}));
  // Two boundaries, and an empty segment.
  abs = resolve_word_offsets(to_bytes(idx), std::vector<uint64_t>{0, 1, 1, 4, 5}, "index");
  EXPECT_EQ(abs, (std::vector<uint64_t>{0, (2ull << 32) + 8, (2ull << 32) + 16, (2ull << 32) + 4,
                                        (3ull << 32) + 12}));
  // v1 has no offsets file: {0, UINT64_MAX} covers everything.
  abs = resolve_word_offsets(to_bytes(idx), std::vector<uint64_t>{0, std::numeric_limits<uint64_t>::max()}, "val");
  EXPECT_EQ(abs, (std::vector<uint64_t>{0, 8, 16, 4, 12}));

  EXPECT_NE(error_of([&] { resolve_word_offsets(to_bytes(idx), std::vector<uint64_t>{0, 4}, "val"); })
                .find("val_idx_offsets: last entry 4 does not cover the 5 entries"),
            std::string::npos);
  EXPECT_NE(error_of([&] { resolve_word_offsets(to_bytes(idx), std::vector<uint64_t>{1, 5}, "val"); })
                .find("first entry is 1"),
            std::string::npos);
  EXPECT_NE(error_of([&] { resolve_word_offsets(to_bytes(idx), std::vector<uint64_t>{0, 4, 3, 5}, "val"); })
                .find("entries decrease"),
            std::string::npos);
}

TEST(BpcellsStreams, CorruptTablesGiveClearErrors) {
  std::vector<uint32_t> values(300, 9);
  values[10] = 1000;
  Stream s = encode_stream(Variant::M1, values);
  const std::vector<uint64_t> off = {0, s.idx.size()};
  auto decode = [&](const Stream& t, uint64_t count, uint64_t limit = 0) {
    decode_stream(Variant::M1, to_bytes(t.data), to_bytes(t.idx), off, {}, count, "val", limit);
  };
  EXPECT_EQ(error_of([&] { decode(s, 300); }), "(no error)");

  Stream t = s;
  t.data.pop_back();
  EXPECT_NE(error_of([&] { decode(t, 300); }).find("val_idx: chunks end at word"), std::string::npos);
  t = s;
  t.data.push_back(0);
  EXPECT_NE(error_of([&] { decode(t, 300); }).find("(trailing data)"), std::string::npos);
  t = s;
  t.idx[1] += 2;  // not a whole number of rows
  EXPECT_NE(error_of([&] { decode(t, 300); }).find("chunk 0 spans"), std::string::npos);
  t = s;
  t.idx[1] = t.idx[2] + 4;  // decreasing
  EXPECT_NE(error_of([&] { decode(t, 300); }).find("offsets decrease at chunk 1"), std::string::npos);
  t = s;
  t.idx[0] = 4;
  EXPECT_NE(error_of([&] { decode(t, 300); }).find("first entry is 4"), std::string::npos);
  EXPECT_NE(error_of([&] { decode(s, 500); }).find("val_idx: 4 entries, expected 5"), std::string::npos);
  EXPECT_NE(error_of([&] { decode(s, 300, 1000); }).find("value 1000 at position 10 is out of range"),
            std::string::npos);

  // A width above 32 (a chunk of 132 words).
  Stream wide;
  wide.idx = {0, 132};
  wide.data.assign(132, 0);
  EXPECT_NE(error_of([&] { decode(wide, 128); }).find("bit width 33 > 32"), std::string::npos);

  // d1z without its starts entry.
  Stream z = encode_stream(Variant::D1Z, values);
  z.starts.pop_back();
  EXPECT_NE(error_of([&] {
              decode_stream(Variant::D1Z, to_bytes(z.data), to_bytes(z.idx), off, to_bytes(z.starts), 300, "index");
            }).find("index_starts: 2 entries, expected 3"),
            std::string::npos);
}

// ---- array files and small files -----------------------------------------------------------

namespace {
std::vector<uint8_t> file_with(const char* magic, std::vector<uint8_t> payload) {
  std::vector<uint8_t> f(8 + payload.size());
  std::memcpy(f.data(), magic, 8);
  std::copy(payload.begin(), payload.end(), f.begin() + 8);
  return f;
}
std::vector<uint8_t> text(const std::string& s) { return {s.begin(), s.end()}; }
}  // namespace

TEST(BpcellsArrayFiles, HeadersAreChecked) {
  auto f = file_with("UINT64v1", {1, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0});
  ArrayFile a = parse_array_file(f, ElemType::U64, "idxptr");
  EXPECT_EQ(a.count, 2u);
  EXPECT_EQ(array_values<uint64_t>(a), (std::vector<uint64_t>{1, 2}));
  const float fl[2] = {1.5f, -0.0f};
  std::vector<uint8_t> fp(8);
  std::memcpy(fp.data(), fl, 8);
  auto ff = parse_array_file(file_with("FLOATSv1", fp), ElemType::F32, "val");
  EXPECT_EQ(ff.count, 2u);
  EXPECT_EQ(parse_array_file(file_with("DOUBLEv1", fp), ElemType::F64, "val").count, 1u);
  EXPECT_EQ(parse_array_file(file_with("UINT32v1", {}), ElemType::U32, "index").count, 0u);

  EXPECT_EQ(error_of([&] { parse_array_file(f, ElemType::U32, "idxptr"); }),
            "idxptr: header is UINT64v1 (uint64) but this array must be UINT32v1 (uint32)");
  EXPECT_EQ(error_of([&] { parse_array_file(file_with("1v46TNIU", {}), ElemType::U64, "idxptr"); }),
            "idxptr: header \"1v46TNIU\" is a byte-swapped UINT64v1 (big-endian files are not supported)");
  EXPECT_EQ(error_of([&] { parse_array_file(file_with("GARB\x01GE!", {}), ElemType::U32, "index"); }),
            "index: header \"GARB\\x01GE!\" is not a BPCells array header (expected UINT32v1)");
  EXPECT_EQ(error_of([&] { parse_array_file(text("UINT3"), ElemType::U32, "shape"); }),
            "shape: file is 5 bytes, shorter than the 8-byte array header");
  EXPECT_EQ(error_of([&] { parse_array_file(file_with("UINT32v1", {1, 2, 3, 4, 5, 6}), ElemType::U32, "val"); }),
            "val: payload of 6 bytes is not a whole number of 4-byte uint32 values (2 stray bytes)");
}

TEST(BpcellsArrayFiles, StringArraysVersionOrderShape) {
  EXPECT_EQ(parse_string_array(text("")), std::vector<std::string>{});
  EXPECT_EQ(parse_string_array(text("a\nb\n")), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(parse_string_array(text("a\r\nb\r\n")), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(parse_string_array(text("a\n\nc")), (std::vector<std::string>{"a", "", "c"}));
  EXPECT_EQ(parse_string_array(text("g\xc3\xa9ne\n")), (std::vector<std::string>{"g\xc3\xa9ne"}));

  for (const char* c : {"packed", "unpacked"}) {
    for (const char* t : {"uint", "float", "double"}) {
      for (int v : {1, 2}) {
        const std::string s = std::string(c) + "-" + t + "-matrix-v" + std::to_string(v);
        Version ver = parse_version(text(s + "\n"));
        EXPECT_EQ(ver.text, s);
        EXPECT_EQ(ver.packed, std::string(c) == "packed");
        EXPECT_EQ(ver.format, v);
        EXPECT_EQ(std::string(value_type_name(ver.value_type)),
                  std::string(t) == "uint" ? "uint32" : std::string(t) == "float" ? "float32" : "float64");
        EXPECT_EQ(parse_version(text(s + "\r\n")).text, s);  // CRLF (Windows-written dirs)
      }
    }
  }
  EXPECT_NE(error_of([] { parse_version(text("packed-uint-matrix-v3\n")); })
                .find("unsupported matrix version \"packed-uint-matrix-v3\""),
            std::string::npos);
  EXPECT_NE(error_of([] { parse_version(text("packed-ulong-matrix-v2\n")); }).find("unsupported"), std::string::npos);
  EXPECT_NE(error_of([] { parse_version(text("packed-uint-matrix-v2\nx\n")); }).find("exactly one line, found 2"),
            std::string::npos);
  EXPECT_TRUE(parse_storage_order_is_row(text("row\n")));
  EXPECT_FALSE(parse_storage_order_is_row(text("col\r\n")));
  EXPECT_EQ(error_of([] { parse_storage_order_is_row(text("csc\n")); }),
            "storage_order: must be \"row\" or \"col\", found \"csc\"");
  EXPECT_EQ(error_of([] { parse_shape(file_with("UINT32v1", {1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0})); }),
            "shape: 3 entries, expected 2 (nrow, ncol)");
}

// ---- corpus --------------------------------------------------------------------------------

namespace {

const fs::path kCorpus = testutil::corpus_dir() / "bpcells";

std::optional<std::vector<uint8_t>> slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) return std::nullopt;
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), {});
}

FileReader dir_reader(const fs::path& dir) {
  return [dir](const std::string& name) { return slurp(dir / name); };
}

std::vector<std::string> lines_of(const fs::path& p) {
  auto b = slurp(p);
  return b ? parse_string_array(*b) : std::vector<std::string>{};
}

}  // namespace

TEST(BpcellsCorpus, EveryValidDirectoryMatchesExpectedArrays) {
  const auto cases = testutil::read_json(kCorpus / "manifest.json");
  ASSERT_GE(cases.size(), 15u);
  for (const auto& c : cases) {
    SCOPED_TRACE(c.at("name").get<std::string>());
    const fs::path dir = kCorpus / c.at("dir").get<std::string>();
    const fs::path exp = kCorpus / c.at("expected").get<std::string>();
    for (Kernel k : {Kernel::Scalar, Kernel::Auto}) {
      Matrix m = read_matrix(dir_reader(dir), k);
      EXPECT_EQ(m.version.text, c.at("version").get<std::string>());
      EXPECT_EQ(m.row_major ? "row" : "col", c.at("storage_order").get<std::string>());
      EXPECT_EQ(std::string(value_type_name(m.version.value_type)), c.at("dtype").get<std::string>());
      EXPECT_EQ(m.nnz(), c.at("nnz").get<uint64_t>());
      EXPECT_EQ(m.nrow, c.at("shape")[0].get<uint32_t>());
      EXPECT_EQ(m.ncol, c.at("shape")[1].get<uint32_t>());

      const auto shape_bytes = *slurp(exp / "shape.u32");
      auto shape = array_values<uint32_t>(ArrayFile{ElemType::U32, shape_bytes, 2});
      EXPECT_EQ(m.nrow, shape[0]);
      EXPECT_EQ(m.ncol, shape[1]);
      const auto idxptr = *slurp(exp / "idxptr.u64");
      ASSERT_EQ(m.idxptr.size() * 8, idxptr.size());
      EXPECT_EQ(std::memcmp(m.idxptr.data(), idxptr.data(), idxptr.size()), 0);
      const auto index = *slurp(exp / "index.u32");
      ASSERT_EQ(m.index.size() * 4, index.size());
      EXPECT_TRUE(index.empty() || std::memcmp(m.index.data(), index.data(), index.size()) == 0);
      const std::string dtype = c.at("dtype").get<std::string>();
      const std::string ext = dtype == "uint32" ? "u32" : dtype == "float32" ? "f32" : "f64";
      EXPECT_EQ(m.val, *slurp(exp / ("val." + ext)));  // bit-exact, also for NaN/-0
      EXPECT_EQ(m.row_names, lines_of(exp / "row_names.txt"));
      EXPECT_EQ(m.col_names, lines_of(exp / "col_names.txt"));
      EXPECT_EQ(!m.row_names.empty(), c.at("has_row_names").get<bool>());
      EXPECT_EQ(!m.col_names.empty(), c.at("has_col_names").get<bool>());
    }
  }
}

TEST(BpcellsCorpus, EveryCorruptDirectoryIsRejectedWithAClearMessage) {
  // What each manifest category must say (our wording, checked against every case).
  const std::map<std::string, std::string> says = {
      {"truncated", "truncated"},     {"header", "header"},
      {"monotone", "not monotone"},   {"index out of range", "out of range"},
      {"idx past data", "truncated"}, {"missing file", "file missing"},
      {"version", "unsupported matrix version"},
  };
  const auto cases = testutil::read_json(kCorpus / "corrupt" / "manifest.json");
  ASSERT_GE(cases.size(), 11u);
  for (const auto& c : cases) {
    SCOPED_TRACE(c.at("name").get<std::string>());
    const std::string category = c.at("expected_error").get<std::string>();
    const std::string msg = error_of([&] { read_matrix(dir_reader(kCorpus / c.at("dir").get<std::string>())); });
    ASSERT_NE(msg, "(no error)");
    ASSERT_TRUE(says.count(category)) << category;
    EXPECT_NE(msg.find(says.at(category)), std::string::npos) << msg;
  }
}

TEST(BpcellsCorpus, ZeroOuterQuirkAndNameCounts) {
  // Built from a real directory: a 10x8 all-zero matrix, then edited.
  const fs::path src = kCorpus / "packed_uint_allzero" / "matrix";
  std::map<std::string, std::vector<uint8_t>> files;
  for (const auto& e : fs::directory_iterator(src)) files[e.path().filename().string()] = *slurp(e.path());
  auto reader = [&files](const std::string& n) -> std::optional<std::vector<uint8_t>> {
    auto it = files.find(n);
    if (it == files.end()) return std::nullopt;
    return it->second;
  };
  EXPECT_EQ(read_matrix(reader).idxptr, std::vector<uint64_t>(9, 0));
  // 0 columns: BPCells writes idxptr [0, 0]; shape wins.
  files["shape"] = file_with("UINT32v1", {10, 0, 0, 0, 0, 0, 0, 0});
  files["idxptr"] = file_with("UINT64v1", std::vector<uint8_t>(16, 0));
  Matrix m = read_matrix(reader);
  EXPECT_EQ(m.ncol, 0u);
  EXPECT_EQ(m.idxptr, std::vector<uint64_t>{0});
  // Names: 0 or one per row.
  files["row_names"] = text("a\nb\n");
  EXPECT_EQ(error_of([&] { read_matrix(reader); }), "row_names: 2 names for 10 rows");
}

// An error about one array file carries the file's name beside the message (the binding hands it
// to JS as err.file): the file is never read back out of the text.
TEST(BpcellsStreams, ErrorsNameTheirArrayFileAsAField) {
  using Failure = std::pair<std::string, std::string>;  // {file, message}
  auto failure = [](const std::function<void()>& f) -> Failure {
    try {
      f();
    } catch (const FileError& e) {
      return {e.file(), e.what()};
    } catch (const DecodeError& e) {
      return {"(no file)", e.what()};
    }
    return {"(no error)", ""};
  };
  std::vector<uint32_t> values(300, 9);
  values[10] = 1000;
  Stream s = encode_stream(Variant::M1, values);
  const std::vector<uint64_t> off = {0, s.idx.size()};
  auto decode = [&](const Stream& t, uint64_t limit, std::string_view name) {
    decode_stream(Variant::M1, to_bytes(t.data), to_bytes(t.idx), off, {}, 300, name, limit);
  };
  // A decoded value out of range: the message speaks of the stream, the error is about its data.
  EXPECT_EQ(failure([&] { decode(s, 1000, "/mat/val"); }),
            Failure("/mat/val_data", "/mat/val: value 1000 at position 10 is out of range (must be < 1000)"));
  Stream t = s;
  t.data.pop_back();
  EXPECT_EQ(failure([&] { decode(t, 0, "val"); }).first, "val_idx");
  EXPECT_EQ(failure([] { check_array_header(text("XXXXXXXX"), ElemType::U32, "/mat/index"); }),
            Failure("/mat/index", "/mat/index: header \"XXXXXXXX\" is not a BPCells array header (expected UINT32v1)"));
  const Failure v = failure([] { parse_version(text("packed-uint-matrix-v3\n"), "/mat@version"); });
  EXPECT_EQ(v.first, "/mat@version");
  EXPECT_EQ(v.second.rfind("/mat@version: unsupported matrix version \"packed-uint-matrix-v3\"", 0), 0u) << v.second;
  EXPECT_EQ(failure([] { read_matrix([](const std::string&) { return std::nullopt; }); }).first, "version");
}
