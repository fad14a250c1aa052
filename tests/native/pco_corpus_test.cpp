// Every reference-made Pco file decodes bit-exactly; every corrupt one fails cleanly.
#include <gtest/gtest.h>

#include "corpus.hpp"
#include "pco/standalone.hpp"
#include "pco/wrapped.hpp"

using namespace numdecode;
using namespace numdecode::pco;
using nlohmann::json;

namespace {

std::filesystem::path pco_dir() { return testutil::corpus_dir() / "pco"; }

std::vector<json> manifest_cases() {
  std::vector<json> out;
  for (auto& c : testutil::read_json(pco_dir() / "manifest.json")) out.push_back(c);
  return out;
}

template <class Buffer>
void expect_matches_expected(const json& c, const Buffer& decoded) {
  if (c["expected"].is_null()) {
    EXPECT_EQ(testutil::sha256_hex(decoded.data(), decoded.size()), c["sha256_of_expected"].get<std::string>());
  } else {
    auto expected = testutil::read_file(pco_dir() / c["expected"].get<std::string>());
    ASSERT_EQ(decoded.size(), expected.size());
    EXPECT_TRUE(std::equal(expected.begin(), expected.end(), decoded.begin())) << "decoded bytes differ from " << c["expected"];
  }
}

// Manifest names like "FloatQuant(13)" or "Consecutive(2)" carry a parameter after the name.
std::string base_name(const std::string& s) { return s.substr(0, s.find('(')); }

void expect_meta_matches(const json& detail, const ChunkMeta& meta) {
  EXPECT_EQ(detail["dtype"].get<std::string>(), dtype_name(meta.dtype));
  std::string mode = detail["mode"];
  EXPECT_EQ(base_name(mode), mode_name(meta.mode.kind));
  if (meta.mode.kind == ModeKind::FloatQuant) {
    EXPECT_EQ(mode, "FloatQuant(" + std::to_string(meta.mode.k) + ")");
  }
  std::string delta = detail["delta"];
  EXPECT_EQ(base_name(delta), delta_name(meta.delta.kind));
  if (meta.delta.kind == DeltaKind::Consecutive || meta.delta.kind == DeltaKind::Conv1) {
    EXPECT_EQ(delta, std::string(delta_name(meta.delta.kind)) + "(" + std::to_string(meta.delta.order) + ")");
  }
  const auto& vars = detail["latent_vars"];
  ASSERT_EQ(vars.size(), meta.vars.size());
  for (size_t i = 0; i < vars.size(); ++i) {
    EXPECT_EQ(vars[i]["key"].get<std::string>(), var_key_name(meta.vars[i].key));
    EXPECT_EQ(vars[i]["ans_size_log"].get<unsigned>(), meta.vars[i].ans_size_log);
    EXPECT_EQ(vars[i]["n_bins"].get<size_t>(), meta.vars[i].bins.size());
  }
}

class PcoCorpus : public ::testing::TestWithParam<json> {};

TEST_P(PcoCorpus, DecodesBitExactly) {
  const json& c = GetParam();
  if (c["format"] == "wrapped") {
    auto spec = testutil::read_json(pco_dir() / c["file"].get<std::string>());
    if (!spec.contains("header")) spec = testutil::read_json(pco_dir() / (c["file"].get<std::string>() + ".json"));
    DType dtype = *dtype_from_name(spec["dtype"].get<std::string>());
    auto header = testutil::read_file(pco_dir() / spec["header"].get<std::string>());
    FormatVersion version = read_wrapped_header(header);
    std::vector<uint8_t> all;
    size_t ci = 0;
    for (auto& chunk : spec["chunks"]) {
      auto meta = testutil::read_file(pco_dir() / chunk["meta"].get<std::string>());
      ChunkDecoder decoder = read_wrapped_chunk(meta, dtype, version);
      expect_meta_matches(c["chunk_details"][ci++], decoder.meta());
      for (auto& page : chunk["pages"]) {
        auto bytes = testutil::read_file(pco_dir() / page["file"].get<std::string>());
        auto values = decode_wrapped_page(decoder, bytes, page["n"].get<size_t>());
        ASSERT_EQ(values.size(), page["n"].get<size_t>() * dtype_bytes(dtype));
        all.insert(all.end(), values.begin(), values.end());
      }
    }
    expect_matches_expected(c, all);
    return;
  }
  auto bytes = testutil::read_file(pco_dir() / c["file"].get<std::string>());
  StandaloneFile f = read_standalone(bytes);
  expect_matches_expected(c, f.values);
  ASSERT_EQ(f.chunks.size(), c["chunks"].get<size_t>());
  ASSERT_EQ(c["chunk_details"].size(), f.chunks.size());
  for (size_t i = 0; i < f.chunks.size(); ++i) {
    EXPECT_EQ(c["chunk_details"][i]["n"].get<size_t>(), f.chunks[i].n);
    expect_meta_matches(c["chunk_details"][i], f.chunks[i].meta);
  }
  if (c.contains("standalone_version")) {
    EXPECT_EQ(c["standalone_version"].get<unsigned>(), f.header.standalone_version);
  }
  if (c.contains("format_version")) {
    std::string fv = std::to_string(f.header.format.major) + "." + std::to_string(f.header.format.minor);
    EXPECT_EQ(c["format_version"].get<std::string>(), fv);
  }
}

std::string case_name(const ::testing::TestParamInfo<json>& info) {
  std::string s = info.param["name"];
  for (char& ch : s)
    if (!isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return s;
}

INSTANTIATE_TEST_SUITE_P(Manifest, PcoCorpus, ::testing::ValuesIn(manifest_cases()), case_name);

class PcoCorrupt : public ::testing::TestWithParam<json> {};

TEST_P(PcoCorrupt, FailsCleanly) {
  const json& c = GetParam();
  auto bytes = testutil::read_file(pco_dir() / c["file"].get<std::string>());
  if (c["expect"] == "error") {
    try {
      read_standalone(bytes);
      FAIL() << "accepted a file the reference rejects (" << c["reference_message"] << ")";
    } catch (const DecodeError& e) {
      EXPECT_GT(std::string(e.what()).size(), 10u);
    }
  } else {
    try {
      read_standalone(bytes);
    } catch (const DecodeError&) {
      // a clean error is as good as a decode for these
    }
  }
}

std::vector<json> corrupt_cases() {
  json manifest = testutil::read_json(pco_dir() / "corrupt" / "manifest.json");
  return manifest["cases"].get<std::vector<json>>();
}

INSTANTIATE_TEST_SUITE_P(Manifest, PcoCorrupt, ::testing::ValuesIn(corrupt_cases()), case_name);

// The reference requires every proper prefix of a valid file to be an error.
TEST(PcoTruncation, EveryProperPrefixFails) {
  for (const char* name : {"size_i32_n300_consec1.pco", "compat_v1_0_0_dict.pco", "lookback_u32_motifs.pco",
                           "floatmult_f32_tenths.pco", "conv1_u16_order3.pco", "compat_v0_0_0_classic.pco"}) {
    auto bytes = testutil::read_file(pco_dir() / name);
    for (size_t len = 0; len < bytes.size(); ++len) {
      std::vector<uint8_t> prefix(bytes.begin(), bytes.begin() + len);
      EXPECT_THROW(read_standalone(prefix), DecodeError) << name << " cut to " << len << " bytes";
    }
  }
}

}  // namespace

namespace {

// A standalone file whose chunks differ in dtype, spliced from two corpus files: the
// header of the first (its uniform type cleared), each file's chunk, and the terminator.
TEST(PcoMixedDtypes, ChunksKeepTheirOwnTypes) {
  auto a = testutil::read_file(pco_dir() / "classic_u16_n1000.pco");
  auto b = testutil::read_file(pco_dir() / "classic_f32_n1000.pco");
  StandaloneFile fa = read_standalone(a), fb = read_standalone(b);
  ASSERT_EQ(fa.header.standalone_version, 3u);
  std::vector<uint8_t> mixed(a.begin(), a.begin() + fa.chunks[0].byte_start);
  mixed[5] = 0;  // no uniform type
  mixed.insert(mixed.end(), a.begin() + fa.chunks[0].byte_start, a.begin() + fa.chunks[0].byte_end);
  mixed.insert(mixed.end(), b.begin() + fb.chunks[0].byte_start, b.begin() + fb.chunks[0].byte_end);
  mixed.push_back(0);

  StandaloneFile f = read_standalone(mixed);
  ASSERT_EQ(f.chunks.size(), 2u);
  EXPECT_EQ(f.chunks[0].dtype, DType::U16);
  EXPECT_EQ(f.chunks[1].dtype, DType::F32);
  auto u16 = testutil::read_file(pco_dir() / "classic_u16_n1000.bin");
  auto f32 = testutil::read_file(pco_dir() / "classic_f32_n1000.bin");
  EXPECT_TRUE(std::equal(u16.begin(), u16.end(), f.chunk_values(0)));
  EXPECT_TRUE(std::equal(f32.begin(), f32.end(), f.chunk_values(1)));
  EXPECT_EQ(f.values.size(), u16.size() + f32.size());

  mixed[5] = 7;  // uniform u16: the f32 chunk now contradicts the header
  try {
    read_standalone(mixed);
    FAIL() << "a chunk contradicting the uniform type was accepted";
  } catch (const DecodeError& e) {
    EXPECT_NE(std::string(e.what()).find("differs from the file's uniform type u16"), std::string::npos) << e.what();
  }
}

}  // namespace

namespace {

TEST(PcoLimits, OutputLimitRefusesLargerFiles) {
  auto bytes = testutil::read_file(pco_dir() / "const_i32_n10000.pco");
  ASSERT_LT(bytes.size(), 100u);  // a tiny file that legitimately expands to 40000 bytes
  EXPECT_EQ(read_standalone(bytes, true, 40000).values.size(), 40000u);
  try {
    read_standalone(bytes, true, 39999);
    FAIL() << "decoded past the output limit";
  } catch (const DecodeError& e) {
    EXPECT_NE(std::string(e.what()).find("over the limit of 39999"), std::string::npos) << e.what();
  }
}

TEST(PcoLimits, ClaimedCountMustFitTheData) {
  // n = 2^24 claimed by a chunk whose bins need bits per value: refused before allocating.
  auto bytes = testutil::read_file(pco_dir() / "classic_u32_n1000.pco");
  StandaloneFile f = read_standalone(bytes);
  size_t n_at = f.chunks[0].byte_start + 1;  // 24 bits of n - 1, little-endian
  bytes[n_at] = bytes[n_at + 1] = bytes[n_at + 2] = 0xff;
  try {
    read_standalone(bytes);
    FAIL() << "a count of 2^24 was accepted";
  } catch (const DecodeError& e) {
    EXPECT_NE(std::string(e.what()).find("insufficient data: a page of 16777216 numbers needs at least"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
