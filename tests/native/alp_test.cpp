// ALP decoder and encoder tests: the shared corpus (bit-exact), both page layouts, SIMD vs scalar,
// every bit width, random vector access, malformed pages, and encoder round trips.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "alp/alp.hpp"
#include "alp/alp_kernels.hpp"
#include "corpus.hpp"
#include "core/error.hpp"

namespace {

using namespace numdecode;
using namespace numdecode::alp;
using Json = nlohmann::json;

const std::string kAlpDir = std::string(NUMDECODE_CORPUS_DIR) + "/alp";

const Json& valid_manifest() {
  static const Json m = testutil::read_json(kAlpDir + "/manifest.json");
  return m;
}
const Json& corrupt_manifest() {
  static const Json m = testutil::read_json(kAlpDir + "/corrupt/manifest.json");
  return m;
}

template <class Vec>
std::vector<uint8_t> bytes_of(const Vec& v) {
  using T = typename Vec::value_type;
  std::vector<uint8_t> out(v.size() * sizeof(T));
  if (!v.empty()) std::memcpy(out.data(), v.data(), out.size());
  return out;
}

template <class T>
std::vector<T> values_of(const std::vector<uint8_t>& bytes) {
  std::vector<T> out(bytes.size() / sizeof(T));
  if (!out.empty()) std::memcpy(out.data(), bytes.data(), out.size() * sizeof(T));
  return out;
}

template <class T>
std::vector<T> decode(const std::vector<uint8_t>& page, Kernel kernel = Kernel::kAuto) {
  const ValueVector<T> values = PageReader<T>(Bytes(page)).decode_all(kernel);
  return std::vector<T>(values.begin(), values.end());
}

// The whole page through decode_range_streaming (the wasm binding's path).
template <class T>
std::vector<T> decode_streaming(const std::vector<uint8_t>& page, Kernel kernel = Kernel::kAuto) {
  const PageReader<T> reader{Bytes(page)};
  std::vector<T> out(reader.size());
  reader.decode_range_streaming(0, reader.size(), out.data(), kernel);
  return out;
}

// Same page in the merged layout: the draft page without its version byte (offsets count from the
// offset array, so nothing else moves).
std::vector<uint8_t> to_merged(const std::vector<uint8_t>& draft) {
  return std::vector<uint8_t>(draft.begin() + 1, draft.end());
}

// ---------------------------------------------------------------------------------------------
// Constants

TEST(AlpConstants, DecodeTablesHaveTheReferenceBits) {
  // Bit patterns recorded in shared/notes/alp-notes.md §4 (the Arrow reference tables).
  const uint32_t neg[] = {0x3f800000, 0x3dcccccd, 0x3c23d70a, 0x3a83126f, 0x38d1b717, 0x3727c5ac,
                          0x358637bd, 0x33d6bf95, 0x322bcc77, 0x3089705f, 0x2edbe6ff};
  const uint32_t pos[] = {0x3f800000, 0x41200000, 0x42c80000, 0x447a0000, 0x461c4000, 0x47c35000,
                          0x49742400, 0x4b189680, 0x4cbebc20, 0x4e6e6b28, 0x501502f9};
  for (unsigned k = 0; k <= 10; ++k) {
    uint32_t a, b;
    std::memcpy(&a, &AlpTraits<float>::kPow10Neg[k], 4);
    std::memcpy(&b, &AlpTraits<float>::kPow10[k], 4);
    EXPECT_EQ(a, neg[k]) << "10^-" << k;
    EXPECT_EQ(b, pos[k]) << "10^" << k;
  }
  // 10^k as double is exact up to 10^18: the integer table converts without rounding.
  for (unsigned k = 0; k <= 18; ++k) {
    uint64_t p = 1;
    for (unsigned i = 0; i < k; ++i) p *= 10;
    EXPECT_EQ(AlpTraits<double>::kPow10[k], static_cast<double>(p));
    EXPECT_EQ(static_cast<uint64_t>(AlpTraits<double>::kPow10[k]), p);
  }
}

// ---------------------------------------------------------------------------------------------
// Corpus: every valid page decodes bit-exactly, in both kernels and both layouts.

template <class T>
void check_corpus_case(const Json& c) {
  const std::vector<uint8_t> page = testutil::read_file(kAlpDir + "/" + c["file"].get<std::string>());
  const PageReader<T> reader{Bytes(page)};
  const PageHeader& h = reader.header();
  EXPECT_EQ(h.layout, Layout::kDraft);
  EXPECT_EQ(h.num_elements, static_cast<uint32_t>(c["n"].get<double>()));
  EXPECT_EQ(h.log_vector_size, static_cast<unsigned>(c["log_vector_size"].get<double>()));
  EXPECT_EQ(h.num_vectors, static_cast<uint32_t>(c["num_vectors"].get<double>()));

  // Per-vector metadata agrees with the manifest's parsed facts.
  uint64_t exceptions = 0;
  unsigned bw_min = 255, bw_max = 0;
  std::set<std::pair<unsigned, unsigned>> pairs;
  for (size_t k = 0; k < reader.num_vectors(); ++k) {
    const VectorInfo v = reader.vector_info(k);
    exceptions += v.num_exceptions;
    bw_min = std::min(bw_min, v.bit_width);
    bw_max = std::max(bw_max, v.bit_width);
    pairs.insert({v.exponent, v.factor});
  }
  EXPECT_EQ(exceptions, static_cast<uint64_t>(c["exceptions"].get<double>()));
  if (!c["bit_width_min"].is_null()) {
    EXPECT_EQ(bw_min, static_cast<unsigned>(c["bit_width_min"].get<double>()));
    EXPECT_EQ(bw_max, static_cast<unsigned>(c["bit_width_max"].get<double>()));
  }
  std::set<std::pair<unsigned, unsigned>> expected_pairs;
  for (const Json& p : c["exponent_factor_pairs"])
    expected_pairs.insert({static_cast<unsigned>(p[0].get<double>()), static_cast<unsigned>(p[1].get<double>())});
  EXPECT_EQ(pairs, expected_pairs);

  const std::vector<uint8_t> simd = bytes_of(reader.decode_all(Kernel::kAuto));
  const std::vector<uint8_t> scalar = bytes_of(reader.decode_all(Kernel::kScalar));
  ASSERT_EQ(simd.size(), h.num_elements * sizeof(T));
  if (!c["expected"].is_null()) {
    const std::vector<uint8_t> expected = testutil::read_file(kAlpDir + "/" + c["expected"].get<std::string>());
    EXPECT_TRUE(simd == expected) << "SIMD/auto decode differs from " << c["expected"].get<std::string>();
  }
  EXPECT_EQ(testutil::sha256_hex(simd.data(), simd.size()), c["sha256_of_expected"].get<std::string>());
  EXPECT_TRUE(scalar == simd) << "scalar and SIMD kernels disagree";

  // The merged (7-byte header) layout of the same page decodes to the same values.
  const std::vector<uint8_t> merged = to_merged(page);
  const PageReader<T> merged_reader{Bytes(merged)};
  EXPECT_EQ(merged_reader.header().layout, Layout::kMerged);
  EXPECT_EQ(merged_reader.header().header_bytes, 7u);
  EXPECT_TRUE(bytes_of(merged_reader.decode_all()) == simd) << "merged layout decodes differently";
}

TEST(AlpCorpus, EveryValidPageDecodesBitExactly) {
  const Json& m = valid_manifest();
  ASSERT_GE(m.size(), 38u);
  for (const Json& c : m) {
    SCOPED_TRACE(c["name"].get<std::string>());
    if (c["dtype"].get<std::string>() == "float32")
      check_corpus_case<float>(c);
    else
      check_corpus_case<double>(c);
  }
}

// decode_vector(k) and decode_range(start, end) agree with the full decode.
template <class T>
void check_random_access(const std::vector<uint8_t>& page, std::mt19937_64& rng) {
  const PageReader<T> reader{Bytes(page)};
  const ValueVector<T> all = reader.decode_all();
  const auto same = [](const ValueVector<T>& a, const T* b, size_t n) {
    return a.size() == n && (n == 0 || std::memcmp(a.data(), b, n * sizeof(T)) == 0);
  };
  const size_t n = all.size(), vs = reader.header().vector_size;
  for (size_t k = 0; k < reader.num_vectors(); ++k) {
    const ValueVector<T> v = reader.decode_vector(k);
    const size_t first = k * vs;
    EXPECT_TRUE(same(v, all.data() + first, std::min(vs, n - first))) << "vector " << k;
    EXPECT_TRUE(same(reader.decode_vector(k, Kernel::kScalar), all.data() + first, v.size())) << "vector " << k;
  }
  std::vector<std::pair<size_t, size_t>> ranges = {{0, n}, {0, 0}, {n, n}};
  if (n > 2) ranges.push_back({1, n - 1});
  if (n > vs) ranges.push_back({vs - 1, vs + 1});
  if (n > vs) ranges.push_back({vs, n});
  for (int i = 0; i < 20 && n > 0; ++i) {
    size_t a = rng() % (n + 1), b = rng() % (n + 1);
    ranges.push_back({std::min(a, b), std::max(a, b)});
  }
  for (auto [a, b] : ranges) {
    EXPECT_TRUE(same(reader.decode_range(a, b), all.data() + a, b - a)) << "range " << a << ".." << b;
    EXPECT_TRUE(same(reader.decode_range(a, b, Kernel::kScalar), all.data() + a, b - a));
    ValueVector<T> streamed(b - a);
    reader.decode_range_streaming(a, b, streamed.data());
    EXPECT_TRUE(same(streamed, all.data() + a, b - a)) << "streaming range " << a << ".." << b;
  }
  EXPECT_THROW(reader.decode_range_streaming(0, n + 1, nullptr), DecodeError);
  EXPECT_THROW(reader.decode_range(0, n + 1), DecodeError);
  EXPECT_THROW(reader.decode_vector(reader.num_vectors()), DecodeError);
}

TEST(AlpCorpus, DecodeVectorAndRangeMatchFullDecode) {
  std::mt19937_64 rng(7);
  for (const Json& c : valid_manifest()) {
    SCOPED_TRACE(c["name"].get<std::string>());
    const std::vector<uint8_t> page = testutil::read_file(kAlpDir + "/" + c["file"].get<std::string>());
    if (c["dtype"].get<std::string>() == "float32")
      check_random_access<float>(page, rng);
    else
      check_random_access<double>(page, rng);
  }
}

// ---------------------------------------------------------------------------------------------
// Corpus: malformed pages.

// What each must-reject case's message has to say (keyed by name without the dtype prefix).
const std::map<std::string, std::string> kExpectedMessage = {
    {"trunc_header5", "shorter than the 8-byte draft header"},
    {"trunc_header0", "empty"},
    {"trunc_in_offsets", "offset array"},
    {"trunc_in_vector1", "vector 2: offset"}  /* vector 1 is cut, so vector 2 starts past the end */,
    {"trunc_last_byte", "vector 2: data truncated"},
    {"trunc_in_meta", "vector 2: offset"},
    {"offset_huge", "vector 1: offset 4294967280 out of bounds"},
    {"offset_meta_past_end", "vector 2: offset"},
    {"offset_eq_body", "vector 0: offset"},
    {"bitwidth_33", "vector 0: bit width 33 exceeds 32"},
    {"bitwidth_64", "vector 0: bit width 64 exceeds 32"},
    {"bitwidth_65", "vector 0: bit width 65 exceeds 64"},
    {"bitwidth_128", "vector 0: bit width 128 exceeds 64"},
    {"bitwidth_255", "bit width 255 exceeds"},
    {"exponent_11", "vector 0: exponent 11 exceeds 10"},
    {"exponent_19", "vector 0: exponent 19 exceeds 18"},
    {"exponent_255", "vector 0: exponent 255 exceeds"},
    {"factor_gt_exponent", "vector 0: factor 3 exceeds exponent 2"},
    {"exc_pos_eq_len", "position 1024 is outside the vector's 1024 values"},
    {"exc_pos_65535", "position 65535 is outside"},
    {"exc_pos_past_partial", "position 957 is outside the vector's 952 values"},
    {"num_exc_gt_len", "2000 exceptions but the vector holds only 1024"},
    {"num_elements_max", "offset array"},
    {"num_elements_fill_last", "vector 2: data truncated"},
    {"hdr_version_2", "unsupported first byte 2"},
    // First byte 0 selects the merged layout, whose third byte (here 0) is log_vector_size.
    {"hdr_version_0", "log_vector_size 0 out of range"},
    {"hdr_mode_1", "unsupported compression mode 1"},
    {"hdr_integer_encoding_1", "unsupported integer encoding 1"},
    {"hdr_log_vector_size_32", "log_vector_size 32 out of range"},
    {"hdr_log_vector_size_255", "log_vector_size 255 out of range"},
    {"hdr_log_vector_size_31", "log_vector_size 31 out of range"},
    {"bitwidth_max_data_short", "vector 0: data truncated"},
};

// Any access to a malformed page either works or throws DecodeError; it never crashes
// (the sanitizer build checks the "never reads out of bounds" part).
template <class T>
void poke_everywhere(const std::vector<uint8_t>& page) {
  try {
    const PageReader<T> reader{Bytes(page)};
    for (size_t k = 0; k < reader.num_vectors(); ++k) {
      try {
        const ValueVector<T> v = reader.decode_vector(k, Kernel::kAuto);
        EXPECT_TRUE(bytes_of(v) == bytes_of(reader.decode_vector(k, Kernel::kScalar)));
      } catch (const DecodeError&) {
      }
    }
    try {
      reader.decode_range(reader.size() / 3, reader.size());
    } catch (const DecodeError&) {
    }
  } catch (const DecodeError&) {
  }
}

template <class T>
void check_corrupt_case(const Json& c) {
  const std::vector<uint8_t> page = testutil::read_file(kAlpDir + "/corrupt/" + c["file"].get<std::string>());
  const std::string key = c["name"].get<std::string>().substr(4);  // drop "f32_" / "f64_"
  if (c["must_reject"].get<bool>()) {
    auto it = kExpectedMessage.find(key);
    ASSERT_NE(it, kExpectedMessage.end()) << "no expected message listed for " << key;
    for (Kernel kernel : {Kernel::kAuto, Kernel::kScalar}) {
      for (bool streaming : {false, true}) {
        try {
          streaming ? decode_streaming<T>(page, kernel) : decode<T>(page, kernel);
          ADD_FAILURE() << "accepted a must-reject page" << (streaming ? " (streaming)" : "");
        } catch (const DecodeError& e) {
          EXPECT_NE(std::string(e.what()).find(it->second), std::string::npos)
              << "message: " << e.what() << "\nexpected to contain: " << it->second;
        }
      }
    }
  } else {
    try {
      const std::vector<T> a = decode<T>(page, Kernel::kAuto);
      EXPECT_TRUE(bytes_of(a) == bytes_of(decode<T>(page, Kernel::kScalar)));
    } catch (const DecodeError& e) {
      EXPECT_GT(std::strlen(e.what()), 10u);
    }
  }
  poke_everywhere<T>(page);
}

TEST(AlpCorpus, MalformedPagesAreRejectedWithClearMessages) {
  const Json& m = corrupt_manifest();
  ASSERT_GE(m.size(), 68u);
  for (const Json& c : m) {
    SCOPED_TRACE(c["name"].get<std::string>());
    if (c["dtype"].get<std::string>() == "float32")
      check_corrupt_case<float>(c);
    else
      check_corrupt_case<double>(c);
  }
}

TEST(AlpCorpus, TrailingGarbageIsIgnoredLikeTheReference) {
  for (const char* name : {"f32_trailing_garbage", "f64_trailing_garbage"}) {
    SCOPED_TRACE(name);
    const std::vector<uint8_t> page = testutil::read_file(kAlpDir + "/corrupt/" + name + ".alp");
    const std::string base = name[1] == '3' ? "f32_specials_n3000" : "f64_specials_n3000";
    const std::vector<uint8_t> expected = testutil::read_file(kAlpDir + "/" + base + ".bin");
    if (name[1] == '3')
      EXPECT_TRUE(bytes_of(decode<float>(page)) == expected);
    else
      EXPECT_TRUE(bytes_of(decode<double>(page)) == expected);
  }
}

// Every prefix of a valid page is rejected (a page's last vector runs to the end of the page).
TEST(AlpCorpus, EveryTruncationIsRejected) {
  const std::vector<uint8_t> page = testutil::read_file(kAlpDir + "/f64_specials_n3000.alp");
  for (size_t len = 0; len < page.size(); ++len) {
    std::vector<uint8_t> cut(page.begin(), page.begin() + len);
    EXPECT_THROW(decode<double>(cut), DecodeError) << "length " << len;
  }
}

TEST(AlpCorpus, OffsetsMustIncreaseAndStayOutOfTheOffsetArray) {
  std::vector<uint8_t> page = testutil::read_file(kAlpDir + "/f32_sensor1_n3000.alp");
  uint32_t offsets[3];
  std::memcpy(offsets, page.data() + 8, 12);
  std::vector<uint8_t> swapped = page;
  std::memcpy(swapped.data() + 12, &offsets[2], 4);
  std::memcpy(swapped.data() + 16, &offsets[1], 4);
  try {
    decode<float>(swapped);
    ADD_FAILURE() << "accepted swapped offsets";
  } catch (const DecodeError& e) {
    EXPECT_NE(std::string(e.what()).find("offsets must increase"), std::string::npos) << e.what();
  }
  std::vector<uint8_t> into = page;
  const uint32_t four = 4;
  std::memcpy(into.data() + 8, &four, 4);
  try {
    decode<float>(into);
    ADD_FAILURE() << "accepted an offset into the offset array";
  } catch (const DecodeError& e) {
    EXPECT_NE(std::string(e.what()).find("points into the offset array"), std::string::npos) << e.what();
  }
  // Random access to one good vector still works when another vector is malformed.
  const std::vector<float> all = decode<float>(page);
  const PageReader<float> reader{Bytes(swapped)};
  const ValueVector<float> v0 = reader.decode_vector(0);
  EXPECT_EQ(std::memcmp(v0.data(), all.data(), 1024 * sizeof(float)), 0);
}

TEST(AlpCorpus, MergedLayoutRejectsNegativeCount) {
  std::vector<uint8_t> page = to_merged(testutil::read_file(kAlpDir + "/f32_n1.alp"));
  page[6] = 0x80;  // num_elements becomes negative as int32
  try {
    decode<float>(page);
    ADD_FAILURE();
  } catch (const DecodeError& e) {
    EXPECT_NE(std::string(e.what()).find("negative"), std::string::npos) << e.what();
  }
}

// ---------------------------------------------------------------------------------------------
// Hand-built pages: every bit width, both kernels, values computed independently of the decoder.

template <class T>
struct TestVector {
  unsigned exponent = 0, factor = 0, bit_width = 0;
  typename AlpTraits<T>::Unsigned frame = 0;
  std::vector<typename AlpTraits<T>::Unsigned> deltas;
  std::vector<std::pair<uint16_t, T>> exceptions;
};

// Packs bit by bit (LSB first), deliberately unlike the encoder's word-at-a-time packer.
template <class T>
std::vector<uint8_t> build_page(const std::vector<TestVector<T>>& vectors, unsigned lvs, size_t n,
                                Layout layout = Layout::kDraft) {
  std::vector<uint8_t> page;
  if (layout == Layout::kDraft) page.push_back(1);
  page.insert(page.end(), {0, 0, static_cast<uint8_t>(lvs)});
  for (int i = 0; i < 4; ++i) page.push_back(static_cast<uint8_t>(n >> (8 * i)));
  const size_t offsets_at = page.size();
  page.resize(page.size() + 4 * vectors.size());
  for (size_t k = 0; k < vectors.size(); ++k) {
    const TestVector<T>& v = vectors[k];
    const uint32_t off = static_cast<uint32_t>(page.size() - offsets_at);
    std::memcpy(page.data() + offsets_at + 4 * k, &off, 4);
    page.push_back(static_cast<uint8_t>(v.exponent));
    page.push_back(static_cast<uint8_t>(v.factor));
    page.push_back(static_cast<uint8_t>(v.exceptions.size()));
    page.push_back(static_cast<uint8_t>(v.exceptions.size() >> 8));
    for (size_t b = 0; b < sizeof(T); ++b) page.push_back(static_cast<uint8_t>(uint64_t{v.frame} >> (8 * b)));
    page.push_back(static_cast<uint8_t>(v.bit_width));
    const size_t packed_at = page.size();
    page.resize(packed_at + (v.deltas.size() * v.bit_width + 7) / 8);
    for (size_t i = 0; i < v.deltas.size(); ++i)
      for (unsigned b = 0; b < v.bit_width; ++b)
        if ((uint64_t{v.deltas[i]} >> b) & 1) {
          const size_t bit = i * v.bit_width + b;
          page[packed_at + bit / 8] |= static_cast<uint8_t>(1u << (bit % 8));
        }
    for (auto [pos, value] : v.exceptions) {
      page.push_back(static_cast<uint8_t>(pos));
      page.push_back(static_cast<uint8_t>(pos >> 8));
    }
    for (auto [pos, value] : v.exceptions) {
      uint8_t raw[sizeof(T)];
      std::memcpy(raw, &value, sizeof(T));
      page.insert(page.end(), raw, raw + sizeof(T));
    }
  }
  return page;
}

template <class T>
std::vector<T> expected_values(const TestVector<T>& v) {
  using Traits = AlpTraits<T>;
  std::vector<T> out;
  for (auto d : v.deltas) {
    const auto encoded = static_cast<typename Traits::Signed>(static_cast<typename Traits::Unsigned>(d + v.frame));
    out.push_back(static_cast<T>(encoded) * Traits::kPow10[v.factor] * Traits::kPow10Neg[v.exponent]);
  }
  for (auto [pos, value] : v.exceptions) out[pos] = value;
  return out;
}

template <class T>
void check_every_bit_width() {
  using U = typename AlpTraits<T>::Unsigned;
  std::mt19937_64 rng(42);
  for (unsigned bw = 0; bw <= AlpTraits<T>::kMaxBitWidth; ++bw) {
    // Several vector lengths so that SIMD groups, tails, and the page end all get exercised.
    for (size_t len : {size_t{1}, size_t{7}, size_t{8}, size_t{9}, size_t{31}, size_t{64}, size_t{100},
                       size_t{1000}, size_t{1024}}) {
      SCOPED_TRACE("bit width " + std::to_string(bw) + ", length " + std::to_string(len));
      const unsigned lvs = 10;
      TestVector<T> v;
      v.exponent = static_cast<unsigned>(rng() % (AlpTraits<T>::kMaxExponent + 1));
      v.factor = static_cast<unsigned>(rng() % (v.exponent + 1));
      v.bit_width = bw;
      v.frame = static_cast<U>(rng());
      const uint64_t mask = bw == 64 ? ~uint64_t{0} : (uint64_t{1} << bw) - 1;
      for (size_t i = 0; i < len; ++i) {
        // Mix extremes (all ones, zero) with random deltas.
        const uint64_t r = rng();
        v.deltas.push_back(static_cast<U>((i % 13 == 0 ? ~uint64_t{0} : i % 17 == 0 ? 0 : r) & mask));
      }
      if (len > 3) v.exceptions = {{2, std::numeric_limits<T>::quiet_NaN()}, {static_cast<uint16_t>(len - 1), T(-0.0)}};
      const std::vector<uint8_t> page = build_page<T>({v}, lvs, len);
      const std::vector<T> expected = expected_values(v);
      EXPECT_TRUE(bytes_of(decode<T>(page, Kernel::kAuto)) == bytes_of(expected));
      EXPECT_TRUE(bytes_of(decode<T>(page, Kernel::kScalar)) == bytes_of(expected));
      EXPECT_TRUE(bytes_of(decode_streaming<T>(page)) == bytes_of(expected));
      // Same vector followed by more bytes: the fast paths may read further, results must not change.
      std::vector<uint8_t> padded = page;
      padded.resize(page.size() + 40, 0xFF);
      EXPECT_TRUE(bytes_of(decode<T>(padded, Kernel::kAuto)) == bytes_of(expected));
    }
  }
}

TEST(AlpKernels, EveryBitWidthF32) { check_every_bit_width<float>(); }
TEST(AlpKernels, EveryBitWidthF64) { check_every_bit_width<double>(); }

TEST(AlpKernels, SeedExampleOnePacksAsDocumented) {
  // Seed example 1: deltas [111, 444, 777, 0] at bw 10 pack to 6f f0 96 30 00; FOR 12, e = f = 0.
  TestVector<float> v;
  v.bit_width = 10;
  v.frame = 12;
  v.deltas = {111, 444, 777, 0};
  const std::vector<uint8_t> page = build_page<float>({v}, 10, 4);
  const std::vector<uint8_t> packed(page.end() - 5, page.end());
  EXPECT_EQ(packed, (std::vector<uint8_t>{0x6f, 0xf0, 0x96, 0x30, 0x00}));
  EXPECT_EQ(decode<float>(page), (std::vector<float>{123, 456, 789, 12}));
}

TEST(AlpKernels, FactorMultipliesThenExponentDivides) {
  // The spec's decode line (x * 10^-f * 10^-e) is wrong; the reference computes x * 10^f * 10^-e.
  // 123 at e = 9, f = 7: 123 * 1e7f * 1e-9f = 1.23 (in float rounding), not 1.23e-14.
  TestVector<float> v;
  v.exponent = 9;
  v.factor = 7;
  v.bit_width = 0;
  v.frame = 123;
  v.deltas = {0};
  const float got = decode<float>(build_page<float>({v}, 10, 1))[0];
  EXPECT_EQ(got, (123.0f * 1e7f) * 1e-9f);
  EXPECT_NEAR(got, 1.23f, 1e-6f);
}

TEST(AlpKernels, FrameAdditionWrapsAndIsSigned) {
  // f32: FOR 0xFFFFFFFF + delta 1 wraps to 0; FOR 0x80000000 is INT32_MIN.
  TestVector<float> v;
  v.bit_width = 1;
  v.frame = 0xFFFFFFFFu;
  v.deltas = {0, 1};
  EXPECT_EQ(decode<float>(build_page<float>({v}, 10, 2)), (std::vector<float>{-1.0f, 0.0f}));
  TestVector<double> d;
  d.bit_width = 64;
  d.frame = uint64_t{1} << 63;
  d.deltas = {0, (uint64_t{1} << 63) - 1, ~uint64_t{0}};
  const std::vector<double> got = decode<double>(build_page<double>({d}, 10, 3));
  EXPECT_EQ(got, (std::vector<double>{-9223372036854775808.0, -1.0, 9223372036854775807.0}));
}

TEST(AlpKernels, Int64ToDoubleRoundsLikeTheScalarCast) {
  // The SIMD int64 -> double conversion (hi*2^32 + lo) must round exactly like a plain cast,
  // including ties and values that need all 64 bits.
  std::mt19937_64 rng(3);
  TestVector<double> v;
  v.bit_width = 64;
  v.frame = 0;
  for (int i = 0; i < 1024; ++i) {
    uint64_t x = rng();
    if (i % 4 == 1) x = (x & ~uint64_t{0x7FF}) | 0x400;  // exact tie below the 53-bit mantissa
    if (i % 4 == 2) x >>= (rng() % 64);
    v.deltas.push_back(x);
  }
  const std::vector<uint8_t> page = build_page<double>({v}, 10, 1024);
  EXPECT_TRUE(bytes_of(decode<double>(page, Kernel::kAuto)) == bytes_of(expected_values(v)));
}

// f64 vectors whose integers fit in int32 take a separate SIMD path: check its edges
// (frame at INT32_MIN, largest value at INT32_MAX, one past it) for every width up to 32.
TEST(AlpKernels, F64FramesAtTheInt32Edges) {
  std::mt19937_64 rng(8);
  for (unsigned bw = 1; bw <= 32; ++bw) {
    const uint64_t max_delta = (uint64_t{1} << bw) - 1;
    const int64_t frames[] = {INT32_MIN, int64_t{INT32_MAX} - static_cast<int64_t>(max_delta),
                              int64_t{INT32_MAX} - static_cast<int64_t>(max_delta) + 1, -5, 0,
                              int64_t{INT32_MIN} - 1};
    for (int64_t frame : frames) {
      SCOPED_TRACE("bit width " + std::to_string(bw) + ", frame " + std::to_string(frame));
      TestVector<double> v;
      v.exponent = 3;
      v.factor = 1;
      v.bit_width = bw;
      v.frame = static_cast<uint64_t>(frame);
      for (size_t i = 0; i < 203; ++i) v.deltas.push_back(i % 5 == 0 ? max_delta : rng() & max_delta);
      const std::vector<uint8_t> page = build_page<double>({v}, 10, v.deltas.size());
      EXPECT_TRUE(bytes_of(decode<double>(page, Kernel::kAuto)) == bytes_of(expected_values(v)));
      EXPECT_TRUE(bytes_of(decode<double>(page, Kernel::kScalar)) == bytes_of(expected_values(v)));
    }
  }
}

TEST(AlpKernels, MultipleVectorsWithDifferentParameters) {
  std::mt19937_64 rng(5);
  for (unsigned lvs : {3u, 4u, 9u, 12u, 15u}) {
    SCOPED_TRACE("lvs " + std::to_string(lvs));
    const size_t vs = size_t{1} << lvs;
    const size_t n = 3 * vs + vs / 2 + 1;
    std::vector<TestVector<double>> vectors;
    std::vector<double> expected;
    for (size_t k = 0; k * vs < n; ++k) {
      TestVector<double> v;
      v.exponent = static_cast<unsigned>(rng() % 19);
      v.factor = static_cast<unsigned>(rng() % (v.exponent + 1));
      v.bit_width = static_cast<unsigned>(rng() % 65);
      v.frame = rng();
      const size_t len = std::min(vs, n - k * vs);
      for (size_t i = 0; i < len; ++i)
        v.deltas.push_back(v.bit_width == 64 ? rng() : rng() & ((uint64_t{1} << v.bit_width) - 1));
      v.exceptions = {{static_cast<uint16_t>(len - 1), std::numeric_limits<double>::infinity()}};
      const std::vector<double> e = expected_values(v);
      expected.insert(expected.end(), e.begin(), e.end());
      vectors.push_back(v);
    }
    for (Layout layout : {Layout::kDraft, Layout::kMerged}) {
      const std::vector<uint8_t> page = build_page<double>(vectors, lvs, n, layout);
      EXPECT_TRUE(bytes_of(decode<double>(page)) == bytes_of(expected));
      EXPECT_TRUE(bytes_of(decode<double>(page, Kernel::kScalar)) == bytes_of(expected));
    }
  }
}

TEST(AlpKernels, RepeatedExceptionPositionKeepsTheLastValue) {
  TestVector<float> v;
  v.bit_width = 0;
  v.deltas = {0, 0, 0};
  v.exceptions = {{1, 5.0f}, {1, 7.0f}};
  EXPECT_EQ(decode<float>(build_page<float>({v}, 10, 3)), (std::vector<float>{0, 7.0f, 0}));
}

// ---------------------------------------------------------------------------------------------
// Encoder

template <class T>
void expect_round_trip(const std::vector<T>& values, const EncodeOptions& options = {}) {
  const std::vector<uint8_t> page = encode<T>(std::span<const T>(values), options);
  const PageReader<T> reader{Bytes(page)};
  EXPECT_EQ(reader.header().layout, options.layout);
  EXPECT_EQ(reader.header().log_vector_size, options.log_vector_size);
  EXPECT_EQ(reader.size(), values.size());
  const ValueVector<T> simd = reader.decode_all(Kernel::kAuto);
  const ValueVector<T> scalar = reader.decode_all(Kernel::kScalar);
  EXPECT_TRUE(bytes_of(simd) == bytes_of(values)) << "round trip is not bit-exact (n = " << values.size() << ")";
  EXPECT_TRUE(bytes_of(scalar) == bytes_of(values));
  // Vectors are contiguous and the page has no slack: each offset equals the previous end.
  size_t expected_offset = reader.header().header_bytes + 4 * reader.num_vectors();
  for (size_t k = 0; k < reader.num_vectors(); ++k) {
    const VectorInfo v = reader.vector_info(k);
    EXPECT_EQ(v.offset, expected_offset);
    expected_offset += v.bytes;
  }
  EXPECT_EQ(expected_offset, page.size());
}

template <class T>
T from_bits(typename AlpTraits<T>::Unsigned bits) {
  T v;
  std::memcpy(&v, &bits, sizeof v);
  return v;
}

template <class T>
std::vector<std::vector<T>> adversarial_sets() {
  using U = typename AlpTraits<T>::Unsigned;
  using L = std::numeric_limits<T>;
  std::mt19937_64 rng(11);
  std::vector<std::vector<T>> sets;
  auto gen = [&](size_t n, auto f) {
    std::vector<T> v(n);
    for (size_t i = 0; i < n; ++i) v[i] = f(i);
    sets.push_back(std::move(v));
  };
  const U exp_mask = sizeof(T) == 4 ? U(0x7F800000u) : U(0x7FF0000000000000ull);
  for (size_t n : {size_t{0}, size_t{1}, size_t{2}, size_t{1023}, size_t{1024}, size_t{1025}, size_t{5000}}) {
    // decimals with two digits, like prices
    gen(n, [&](size_t) { return static_cast<T>(static_cast<double>(rng() % 1000000) / 100.0); });
    // integers, including negative
    gen(n, [&](size_t) { return static_cast<T>(static_cast<int64_t>(rng() % 200001) - 100000); });
    // random bit patterns (mostly exceptions, NaNs with payloads included)
    gen(n, [&](size_t) { return from_bits<T>(static_cast<U>(rng())); });
    // uniform [0, 1)
    gen(n, [&](size_t) { return static_cast<T>(std::uniform_real_distribution<double>(0, 1)(rng)); });
    // specials mixed into decimals
    gen(n, [&](size_t i) -> T {
      switch (i % 11) {
        case 0: return L::quiet_NaN();
        case 1: return -L::quiet_NaN();
        case 2: return from_bits<T>(exp_mask | U(1));                   // signalling NaN payload
        case 3: return from_bits<T>(exp_mask | U(rng() & (exp_mask >> 1) & ~exp_mask) | U(1));  // random payload
        case 4: return L::infinity();
        case 5: return -L::infinity();
        case 6: return T(-0.0);
        case 7: return L::denorm_min();
        case 8: return -from_bits<T>(static_cast<U>(rng()) & (~exp_mask >> 1) & ~exp_mask);  // subnormal
        case 9: return (i & 1) ? L::max() : L::lowest();
        default: return static_cast<T>(static_cast<double>(rng() % 10000) / 10.0);
      }
    });
    // values at and just past the integer-range limit of the encoded integers
    gen(n, [&](size_t i) -> T {
      const T lim = AlpTraits<T>::kMaxEncodable;
      const T past = std::nextafter(lim, L::infinity());
      const T choices[] = {lim, -lim, past, -past, T(1e30), T(-1e30), T(0.0), T(1.0)};
      return choices[i % 8];
    });
    // constant, and constant -0.0 (every value an exception)
    gen(n, [&](size_t) { return T(3.25); });
    gen(n, [&](size_t) { return T(-0.0); });
    // sensor-like: smooth with 3 decimals, negative and positive
    gen(n, [&](size_t i) { return static_cast<T>(std::round(1000.0 * 20.0 * std::sin(i * 0.01)) / 1000.0); });
    // huge decimal magnitudes and tiny ones
    gen(n, [&](size_t) { return static_cast<T>((rng() % 1000) * 1e15); });
    gen(n, [&](size_t) { return static_cast<T>((rng() % 1000) * 1e-12); });
  }
  return sets;
}

template <class T>
void check_encoder_round_trips() {
  const std::vector<std::vector<T>> sets = adversarial_sets<T>();
  for (size_t s = 0; s < sets.size(); ++s) {
    SCOPED_TRACE("set " + std::to_string(s) + " n " + std::to_string(sets[s].size()));
    expect_round_trip(sets[s]);
    EncodeOptions merged;
    merged.layout = Layout::kMerged;
    expect_round_trip(sets[s], merged);
    EncodeOptions small;
    small.log_vector_size = 3;
    expect_round_trip(sets[s], small);
    EncodeOptions large;
    large.log_vector_size = 15;
    expect_round_trip(sets[s], large);
  }
}

TEST(AlpEncoder, RoundTripsAdversarialDataF32) { check_encoder_round_trips<float>(); }
TEST(AlpEncoder, RoundTripsAdversarialDataF64) { check_encoder_round_trips<double>(); }

TEST(AlpEncoder, RoundTripsRandomData) {
  std::mt19937_64 rng(99);
  for (int trial = 0; trial < 30; ++trial) {
    const size_t n = rng() % 5000;
    const int digits = static_cast<int>(rng() % 6);
    const double scale = std::pow(10.0, digits);
    std::vector<float> f(n);
    std::vector<double> d(n);
    for (size_t i = 0; i < n; ++i) {
      const double x = static_cast<double>(static_cast<int64_t>(rng() % 2000000) - 1000000) / scale;
      f[i] = static_cast<float>(x);
      d[i] = x;
      if (rng() % 50 == 0) d[i] = f[i] = std::numeric_limits<float>::quiet_NaN();
    }
    expect_round_trip(f);
    expect_round_trip(d);
  }
}

TEST(AlpEncoder, ManyVectors) {
  std::mt19937_64 rng(1);
  std::vector<double> d(300000);
  for (size_t i = 0; i < d.size(); ++i) d[i] = static_cast<double>(rng() % 100000) / 100.0 + (i / 50000);
  expect_round_trip(d);
}

TEST(AlpEncoder, DecimalDataCompresses) {
  std::mt19937_64 rng(2);
  std::vector<double> prices(10000);
  for (double& p : prices) p = static_cast<double>(rng() % 1000000) / 100.0;  // < 10000.00, 2 decimals
  const std::vector<uint8_t> page = encode<double>(std::span<const double>(prices));
  // 20 bits per value (1e6 distinct integers) instead of 64, plus per-vector metadata.
  EXPECT_LT(page.size(), prices.size() * 8 * 35 / 100);
  const PageReader<double> reader{Bytes(page)};
  for (size_t k = 0; k < reader.num_vectors(); ++k) {
    const VectorInfo v = reader.vector_info(k);
    EXPECT_EQ(v.exponent - v.factor, 2u) << "vector " << k;  // the integers are value * 100
    EXPECT_EQ(v.num_exceptions, 0u);
    EXPECT_EQ(v.bit_width, 20u);
  }
}

TEST(AlpEncoder, ForcedExponentAndFactorAreUsed) {
  std::vector<float> values = {1.23f, 4.56f, 7.89f, 0.12f};
  EncodeOptions options;
  options.force_exponent_factor = true;
  options.exponent = 2;
  options.factor = 0;
  const std::vector<uint8_t> page = encode<float>(std::span<const float>(values), options);
  const PageReader<float> reader{Bytes(page)};
  const VectorInfo v = reader.vector_info(0);
  EXPECT_EQ(v.exponent, 2u);
  EXPECT_EQ(v.factor, 0u);
  EXPECT_TRUE(bytes_of(reader.decode_all()) == bytes_of(values));
  options.exponent = 11;
  EXPECT_THROW(encode<float>(std::span<const float>(values), options), std::invalid_argument);
  EncodeOptions bad_lvs;
  bad_lvs.log_vector_size = 16;
  EXPECT_THROW(encode<float>(std::span<const float>(values), bad_lvs), std::invalid_argument);
}

// The corpus values re-encoded by our encoder come back bit-exactly, in a page of similar size
// to the reference encoder's.
TEST(AlpEncoder, CorpusValuesRoundTrip) {
  for (const Json& c : valid_manifest()) {
    if (c["expected"].is_null()) continue;
    SCOPED_TRACE(c["name"].get<std::string>());
    const std::vector<uint8_t> raw = testutil::read_file(kAlpDir + "/" + c["expected"].get<std::string>());
    const auto reference_size = static_cast<size_t>(c["page_bytes"].get<double>());
    EncodeOptions options;
    options.log_vector_size = static_cast<unsigned>(c["log_vector_size"].get<double>());
    std::vector<uint8_t> page;
    if (c["dtype"].get<std::string>() == "float32") {
      const std::vector<float> values = values_of<float>(raw);
      expect_round_trip(values, options);
      page = encode<float>(std::span<const float>(values), options);
    } else {
      const std::vector<double> values = values_of<double>(raw);
      expect_round_trip(values, options);
      page = encode<double>(std::span<const double>(values), options);
    }
    // Not a format requirement; guards the sampling from silently degrading.
    EXPECT_LE(page.size(), reference_size + reference_size / 10 + 64)
        << "ours " << page.size() << " vs reference " << reference_size;
  }
}

}  // namespace
