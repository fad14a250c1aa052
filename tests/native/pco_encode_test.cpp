// The Pco encoder: every dtype round-trips bit for bit through our decoder under every mode and
// delta encoding (NaN payloads, -0, infinities, subnormals, integer extremes, empty, one value,
// many chunks), and with automatic choices its files stay within 1.03x of the reference's on
// the corpus files the reference wrote with automatic choices.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>

#include "corpus.hpp"
#include "pco/encode/chunk_encoder.hpp"
#include "pco/encode/standalone_writer.hpp"
#include "pco/numbers.hpp"
#include "pco/standalone.hpp"
#include "pco/wrapped.hpp"

using namespace numdecode;
using namespace numdecode::pco;
using nlohmann::json;

namespace {

std::filesystem::path pco_dir() { return testutil::corpus_dir() / "pco"; }

template <class T>
std::vector<uint8_t> as_bytes(const std::vector<T>& v) {
  std::vector<uint8_t> out(v.size() * sizeof(T));
  if (!v.empty()) std::memcpy(out.data(), v.data(), out.size());
  return out;
}

// Encodes, decodes with our decoder, and compares bytes; returns the file.
std::vector<uint8_t> expect_round_trip(DType dtype, const std::vector<uint8_t>& values, const ChunkConfig& config = {}) {
  const std::vector<uint8_t> file = encode_standalone(dtype, values, config);
  const StandaloneFile decoded = read_standalone(file);
  EXPECT_EQ(decoded.header.uniform_dtype, dtype);
  EXPECT_EQ(decoded.header.n_hint, values.size() / dtype_bytes(dtype));
  EXPECT_EQ(decoded.values.size(), values.size());
  EXPECT_TRUE(decoded.values.size() == values.size() &&
              std::equal(values.begin(), values.end(), decoded.values.begin()))
      << dtype_name(dtype) << ": decoded bytes differ";
  return file;
}

ModeSpec mode(ModeSpec::Kind kind, uint64_t int_base = 0, double float_base = 0, unsigned k = 0) {
  ModeSpec m;
  m.kind = kind;
  m.int_base = int_base;
  m.float_base = float_base;
  m.k = k;
  return m;
}

DeltaSpec delta(DeltaSpec::Kind kind, unsigned order = 0) {
  DeltaSpec d;
  d.kind = kind;
  d.order = order;
  return d;
}

ChunkConfig config(ModeSpec m, DeltaSpec d, size_t max_page_n = kDefaultMaxPageN) {
  ChunkConfig c;
  c.mode = m;
  c.delta = d;
  c.max_page_n = max_page_n;
  return c;
}

std::vector<DeltaSpec> all_deltas(unsigned bits) {
  std::vector<DeltaSpec> out = {delta(DeltaSpec::Kind::Auto), delta(DeltaSpec::Kind::NoOp),
                                delta(DeltaSpec::Kind::Consecutive, 1), delta(DeltaSpec::Kind::Consecutive, 2),
                                delta(DeltaSpec::Kind::Consecutive, 7), delta(DeltaSpec::Kind::Lookback)};
  if (bits < 64) out.push_back(delta(DeltaSpec::Kind::Conv1, 3));
  return out;
}

// Integers: random, smooth, multiples (IntMult), few distinct (Dict), extremes.
template <class T>
std::vector<T> int_values(size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<T> v;
  for (size_t i = 0; i < n; ++i) {
    switch ((i / 97) % 5) {
      case 0: v.push_back(T(rng())); break;
      case 1: v.push_back(T(T(i * 3) + T(rng() % 5))); break;
      case 2: v.push_back(T(T(rng() % 1000) * T(7))); break;
      case 3: v.push_back(T(rng() % 3)); break;
      default: v.push_back(i % 2 ? std::numeric_limits<T>::max() : std::numeric_limits<T>::min()); break;
    }
  }
  return v;
}

// Float bit patterns: NaNs with payloads (quiet and signaling, both signs), -0, +-inf,
// subnormals, extremes, decimals, smooth values and multiples of a base.
template <class L>
std::vector<L> float_bits(size_t n, uint64_t seed) {
  constexpr unsigned bits = sizeof(L) * 8;
  constexpr unsigned p = float_precision_bits(bits);
  constexpr L top = kTopBit<L>;
  constexpr L exp_all = L(((L(1) << float_exponent_bits(bits)) - 1) << p);
  const L specials[] = {exp_all,                          // +inf
                        L(exp_all | top),                 // -inf
                        L(exp_all | 1),                   // signaling NaN, payload 1
                        L(exp_all | (L(1) << (p - 1)) | 5),  // quiet NaN with payload
                        L(exp_all | top | 3),             // negative NaN
                        top,                              // -0
                        0,                                // +0
                        1,                                // smallest subnormal
                        L(top | ((L(1) << p) - 1)),       // largest negative subnormal
                        L(exp_all - 1),                   // largest finite
                        L((exp_all - 1) | top)};
  std::mt19937_64 rng(seed);
  std::vector<L> v;
  for (size_t i = 0; i < n; ++i) {
    const size_t kind = (i / 61) % 5;
    if (kind == 0 || i % 13 == 0) {
      v.push_back(specials[rng() % std::size(specials)]);
    } else if (kind == 1) {
      v.push_back(L(rng()));
    } else {
      double x = kind == 2 ? double(int64_t(rng() % 20000) - 10000) * 0.01   // decimals
                 : kind == 3 ? std::sin(double(i) * 0.01) * 100.0           // smooth
                             : double(rng() % 500) * 0.25;                  // multiples of 1/4
      if constexpr (bits == 16) v.push_back(f32_to_f16_bits(float(x)));
      else if constexpr (bits == 32) v.push_back(numdecode::bit_cast<uint32_t>(float(x)));
      else v.push_back(numdecode::bit_cast<uint64_t>(x));
    }
  }
  return v;
}

template <class T>
void int_round_trips(DType dtype) {
  const auto values = as_bytes(int_values<T>(3000, 7));
  const unsigned bits = sizeof(T) * 8;
  std::vector<ModeSpec> modes = {mode(ModeSpec::Kind::Auto), mode(ModeSpec::Kind::Classic), mode(ModeSpec::Kind::Dict),
                                 mode(ModeSpec::Kind::IntMult, 7), mode(ModeSpec::Kind::IntMult, 1)};
  for (const ModeSpec& m : modes)
    for (const DeltaSpec& d : all_deltas(bits)) {
      SCOPED_TRACE(testing::Message() << dtype_name(dtype) << " mode " << int(m.kind) << " delta " << int(d.kind) << "(" << d.order << ")");
      expect_round_trip(dtype, values, config(m, d));
      expect_round_trip(dtype, values, config(m, d, 700));  // several chunks, one short
    }
}

template <class L>
void float_round_trips(DType dtype) {
  const auto values = as_bytes(float_bits<L>(3000, 11));
  const unsigned bits = sizeof(L) * 8;
  std::vector<ModeSpec> modes = {mode(ModeSpec::Kind::Auto), mode(ModeSpec::Kind::Classic), mode(ModeSpec::Kind::Dict),
                                 mode(ModeSpec::Kind::FloatMult, 0, 0.01), mode(ModeSpec::Kind::FloatMult, 0, -3.5),
                                 mode(ModeSpec::Kind::FloatQuant, 0, 0, 3),
                                 mode(ModeSpec::Kind::FloatQuant, 0, 0, float_precision_bits(bits))};
  for (const ModeSpec& m : modes)
    for (const DeltaSpec& d : all_deltas(bits)) {
      SCOPED_TRACE(testing::Message() << dtype_name(dtype) << " mode " << int(m.kind) << " delta " << int(d.kind) << "(" << d.order << ")");
      expect_round_trip(dtype, values, config(m, d));
      expect_round_trip(dtype, values, config(m, d, 700));
    }
}

TEST(PcoEncode, IntegersRoundTripInEveryModeAndDelta) {
  int_round_trips<uint8_t>(DType::U8);
  int_round_trips<int8_t>(DType::I8);
  int_round_trips<uint16_t>(DType::U16);
  int_round_trips<int16_t>(DType::I16);
  int_round_trips<uint32_t>(DType::U32);
  int_round_trips<int32_t>(DType::I32);
  int_round_trips<uint64_t>(DType::U64);
  int_round_trips<int64_t>(DType::I64);
}

TEST(PcoEncode, FloatsRoundTripInEveryModeAndDelta) {
  float_round_trips<uint16_t>(DType::F16);
  float_round_trips<uint32_t>(DType::F32);
  float_round_trips<uint64_t>(DType::F64);
}

TEST(PcoEncode, EmptyAndTinyInputs) {
  for (DType d : {DType::U8, DType::I16, DType::F16, DType::U32, DType::F32, DType::I64, DType::F64}) {
    const size_t w = dtype_bytes(d);
    const auto file = expect_round_trip(d, {});
    EXPECT_EQ(file.size(), 10u);  // header, no chunk, termination: as the reference writes it
    for (size_t n : {1, 2, 3, 4, 5, 255, 256, 257}) {
      std::vector<uint8_t> values(n * w);
      for (size_t i = 0; i < values.size(); ++i) values[i] = uint8_t(i * 37 + 11);
      for (const DeltaSpec& ds : all_deltas(unsigned(w * 8)))
        expect_round_trip(d, values, config(mode(ModeSpec::Kind::Auto), ds));
    }
  }
}

TEST(PcoEncode, ManyChunksAndExactPages) {
  const auto values = as_bytes(int_values<int32_t>(10000, 3));
  ChunkConfig c;
  c.max_page_n = 999;
  const auto file = expect_round_trip(DType::I32, values, c);
  EXPECT_EQ(read_standalone(file).chunks.size(), 11u);
  c.page_ns = {1, 9998, 1};
  EXPECT_EQ(read_standalone(expect_round_trip(DType::I32, values, c)).chunks.size(), 3u);
  c.page_ns = {1, 2};
  EXPECT_THROW(encode_standalone(DType::I32, values, c), std::invalid_argument);
}

TEST(PcoEncode, WrappedPagesDecode) {
  const auto values = as_bytes(float_bits<uint64_t>(5000, 5));
  ChunkConfig c;
  c.max_page_n = 1234;
  const ChunkEncoder chunk(DType::F64, values, c);
  ASSERT_EQ(chunk.page_ns().size(), 5u);
  std::vector<uint8_t> meta;
  chunk.write_meta(meta);
  const ChunkDecoder decoder = read_wrapped_chunk(meta, DType::F64, FormatVersion{4, 1});
  std::vector<uint8_t> all;
  for (size_t i = 0; i < chunk.page_ns().size(); ++i) {
    std::vector<uint8_t> page;
    chunk.write_page(i, page);
    const auto decoded = decode_wrapped_page(decoder, page, chunk.page_ns()[i]);
    all.insert(all.end(), decoded.begin(), decoded.end());
  }
  EXPECT_EQ(all, values);
}

TEST(PcoEncode, AutoChoosesTheModeTheDataHas) {
  std::vector<int64_t> stamps(5000);
  for (size_t i = 0; i < stamps.size(); ++i) stamps[i] = 1700000000000 + int64_t(i) * 1000 + (i % 7 == 0 ? 1000 : 0);
  auto file = expect_round_trip(DType::I64, as_bytes(stamps));
  auto meta = read_standalone(file).chunks[0].meta;
  EXPECT_EQ(meta.mode.kind, ModeKind::IntMult);
  EXPECT_EQ(meta.mode.base, 1000u);
  EXPECT_EQ(meta.delta.kind, DeltaKind::Consecutive);

  std::vector<double> prices(5000);
  std::mt19937_64 rng(1);
  for (double& p : prices) p = double(rng() % 100000) * 0.01;
  file = expect_round_trip(DType::F64, as_bytes(prices));
  meta = read_standalone(file).chunks[0].meta;
  EXPECT_EQ(meta.mode.kind, ModeKind::FloatMult);
  EXPECT_EQ(meta.delta.kind, DeltaKind::None);

  std::vector<float> quantized(5000);
  for (float& q : quantized) q = float(numdecode::bit_cast<double>(numdecode::bit_cast<uint64_t>(double(rng() % 1000) + 0.5) & ~((uint64_t{1} << 40) - 1)));
  file = expect_round_trip(DType::F32, as_bytes(quantized));
  EXPECT_NE(read_standalone(file).chunks[0].meta.mode.kind, ModeKind::Dict);
}

TEST(PcoEncode, ExplicitChoicesAreWhatTheFileSays) {
  std::vector<int32_t> smooth(4000);
  for (size_t i = 0; i < smooth.size(); ++i) smooth[i] = int32_t(std::lround(std::sin(double(i) * 0.003) * 1e6)) * 3;
  const auto values = as_bytes(smooth);
  auto meta_of = [&](const ChunkConfig& c) { return read_standalone(expect_round_trip(DType::I32, values, c)).chunks[0].meta; };
  ChunkMeta m = meta_of(config(mode(ModeSpec::Kind::Classic), delta(DeltaSpec::Kind::Consecutive, 3)));
  EXPECT_EQ(m.delta.kind, DeltaKind::Consecutive);
  EXPECT_EQ(m.delta.order, 3u);
  m = meta_of(config(mode(ModeSpec::Kind::Classic), delta(DeltaSpec::Kind::Lookback)));
  EXPECT_EQ(m.delta.kind, DeltaKind::Lookback);
  EXPECT_EQ(m.delta.window_n_log, 12u);  // the chunk's 4000 numbers
  ASSERT_EQ(m.vars.size(), 2u);
  EXPECT_EQ(m.vars[0].key, VarKey::Delta);
  m = meta_of(config(mode(ModeSpec::Kind::Classic), delta(DeltaSpec::Kind::Conv1, 2)));
  EXPECT_EQ(m.delta.kind, DeltaKind::Conv1);
  EXPECT_EQ(m.delta.weights.size(), 2u);
  m = meta_of(config(mode(ModeSpec::Kind::IntMult, 3), delta(DeltaSpec::Kind::NoOp)));
  EXPECT_EQ(m.mode.kind, ModeKind::IntMult);
  EXPECT_EQ(m.mode.base, 3u);
  EXPECT_EQ(m.delta.kind, DeltaKind::None);
  // Dict on 150 distinct values; on `smooth`, a dictionary of ~4000 values, larger than the
  // numbers themselves, is written verbatim instead (pcodec's size guarantee counts the dictionary).
  std::vector<int32_t> levels(4000);
  for (size_t i = 0; i < levels.size(); ++i) levels[i] = int32_t(i % 150) * 1000 - 7;
  m = read_standalone(expect_round_trip(DType::I32, as_bytes(levels), config(mode(ModeSpec::Kind::Dict), delta(DeltaSpec::Kind::NoOp))))
          .chunks[0]
          .meta;
  EXPECT_EQ(m.mode.kind, ModeKind::Dict);
  EXPECT_EQ(m.mode.dict.size(), 150u);
  m = meta_of(config(mode(ModeSpec::Kind::Dict), delta(DeltaSpec::Kind::NoOp)));
  EXPECT_EQ(m.mode.kind, ModeKind::Classic);

  std::vector<float> tenths(4000);
  for (size_t i = 0; i < tenths.size(); ++i) tenths[i] = float(int(i % 300) - 150) * 0.1f;
  auto fmeta = [&](const ChunkConfig& c) { return read_standalone(expect_round_trip(DType::F32, as_bytes(tenths), c)).chunks[0].meta; };
  m = fmeta(config(mode(ModeSpec::Kind::FloatMult, 0, 0.1), delta(DeltaSpec::Kind::NoOp)));
  EXPECT_EQ(m.mode.kind, ModeKind::FloatMult);
  const uint32_t base_bits = from_latent_ordered<uint32_t, NumKind::Float>(uint32_t(m.mode.base));
  EXPECT_EQ(base_bits, numdecode::bit_cast<uint32_t>(0.1f));
  m = fmeta(config(mode(ModeSpec::Kind::FloatQuant, 0, 0, 5), delta(DeltaSpec::Kind::NoOp)));
  EXPECT_EQ(m.mode.kind, ModeKind::FloatQuant);
  EXPECT_EQ(m.mode.k, 5u);
}

TEST(PcoEncode, RejectsOptionsTheTypeCannotTake) {
  const auto ints = as_bytes(int_values<int32_t>(100, 1));
  const auto floats = as_bytes(float_bits<uint32_t>(100, 1));
  EXPECT_THROW(encode_standalone(DType::F32, floats, config(mode(ModeSpec::Kind::IntMult, 3), {})), std::invalid_argument);
  EXPECT_THROW(encode_standalone(DType::I32, ints, config(mode(ModeSpec::Kind::FloatMult, 0, 0.1), {})), std::invalid_argument);
  EXPECT_THROW(encode_standalone(DType::F32, floats, config(mode(ModeSpec::Kind::FloatQuant, 0, 0, 24), {})), std::invalid_argument);
  EXPECT_THROW(encode_standalone(DType::F32, floats, config(mode(ModeSpec::Kind::FloatMult, 0, 1e300), {})), std::invalid_argument);
  EXPECT_THROW(encode_standalone(DType::I32, ints, config(mode(ModeSpec::Kind::IntMult, 0), {})), std::invalid_argument);
  EXPECT_THROW(encode_standalone(DType::I32, ints, config({}, delta(DeltaSpec::Kind::Consecutive, 8))), std::invalid_argument);
  EXPECT_THROW(encode_standalone(DType::I64, as_bytes(int_values<int64_t>(100, 1)), config({}, delta(DeltaSpec::Kind::Conv1, 2))),
               std::invalid_argument);
  ChunkConfig c;
  c.level = 13;
  EXPECT_THROW(encode_standalone(DType::I32, ints, c), std::invalid_argument);
  EXPECT_THROW(encode_standalone(DType::I32, std::vector<uint8_t>(7), {}), std::invalid_argument);
}

// The corpus files the reference wrote with automatic mode and delta choice, at level 8.
class PcoEncodeSize : public ::testing::TestWithParam<json> {};

TEST_P(PcoEncodeSize, AutoWithinThreePercentOfReference) {
  const json& c = GetParam();
  const auto ref = testutil::read_file(pco_dir() / c["file"].get<std::string>());
  // The values: the expected file, or the reference file decoded (bench cases have none).
  const StandaloneFile decoded = read_standalone(ref);
  std::vector<uint8_t> values(decoded.values.begin(), decoded.values.end());
  const DType dtype = *dtype_from_name(c["dtype"].get<std::string>());
  ChunkConfig config;
  // The reference's chunking (simple_compress uses the paging spec for chunks).
  std::vector<size_t> chunk_ns;
  for (const auto& chunk : decoded.chunks) chunk_ns.push_back(chunk.n);
  config.page_ns = chunk_ns;
  const auto ours = expect_round_trip(dtype, values, config);
  // Older formats had smaller headers (no minor version, standalone version, n hint or uniform
  // type): compare against the reference's bytes as format 4.1 would frame them.
  const size_t ref_header = decoded.chunks.empty() ? ref.size() - 1 : decoded.chunks[0].byte_start;
  const size_t ours_header = read_standalone(ours).chunks.empty() ? ours.size() - 1 : read_standalone(ours).chunks[0].byte_start;
  const double ref_size = double(ref.size() - ref_header + ours_header);
  RecordProperty("ours", int(ours.size()));
  RecordProperty("reference", int(ref.size()));
  EXPECT_LE(double(ours.size()), 1.03 * ref_size) << c["name"] << ": ours " << ours.size() << " bytes, reference " << ref.size();
  std::printf("  %-34s ours %8zu  reference %8zu  ratio %.4f\n", c["name"].get<std::string>().c_str(), ours.size(), ref.size(),
              double(ours.size()) / ref_size);
}

std::vector<json> auto_cases() {
  std::vector<json> out;
  for (auto& c : testutil::read_json(pco_dir() / "manifest.json"))
    if (c["format"] == "standalone" && c["mode_hint"] == "Auto" && c["delta_hint"] == "Auto") out.push_back(c);
  return out;
}

INSTANTIATE_TEST_SUITE_P(Corpus, PcoEncodeSize, ::testing::ValuesIn(auto_cases()),
                         [](const auto& info) { return info.param["name"].template get<std::string>(); });

}  // namespace
