#include "pco/standalone.hpp"

#include <algorithm>

#include "core/json_writer.hpp"
#include "pco/numbers.hpp"

namespace numdecode::pco {

namespace {

constexpr uint8_t kMagic[4] = {'p', 'c', 'o', '!'};
constexpr unsigned kMaxStandaloneVersion = 3;

StandaloneHeader read_standalone_header(BitReader& r, Bytes file) {
  StandaloneHeader h;
  if (file.size() < 4 || std::memcmp(file.data(), kMagic, 4) != 0)
    fail("not a Pco standalone file: the first 4 bytes are not \"pco!\"");
  r.seek_bits(32);
  unsigned version = static_cast<unsigned>(r.read(8, "standalone version"));
  if (version < 2) {
    // Versions 0 and 1 had no version byte: that byte is the wrapped format version.
    h.standalone_version = version;
    r.seek_bits(32);
  } else {
    if (version > kMaxStandaloneVersion)
      fail_unsupported("unsupported format: standalone version ", version, " is newer than ", kMaxStandaloneVersion);
    h.standalone_version = version;
    if (version >= 3) {
      uint8_t b = static_cast<uint8_t>(r.read(8, "uniform number type"));
      if (b != 0) {
        auto d = dtype_from_byte(b);
        if (!d) fail("corrupt header: unknown uniform number type byte ", unsigned(b));
        h.uniform_dtype = d;
      }
    }
    unsigned power = 1 + static_cast<unsigned>(r.read(6, "n_hint size"));
    h.n_hint = r.read(power, "n_hint");
    r.align_zero("n_hint");
  }
  h.format = read_header(r);
  return h;
}

}  // namespace

StandaloneFile read_standalone(Bytes file, bool keep_values, size_t max_output_bytes) {
  StandaloneFile f;
  read_standalone(file, f, keep_values, max_output_bytes);
  return f;
}

void read_standalone(Bytes file, StandaloneFile& f, bool keep_values, size_t max_output_bytes) {
  size_t output_bytes = 0;
  f.chunks.clear();
  f.values.clear();
  BitReader r(file);
  f.header = read_standalone_header(r, file);
  for (;;) {
    const size_t chunk_start = r.byte_pos();
    if (r.bits_left() < 8)
      fail("insufficient data: file ends at byte ", file.size(), " without its termination byte");
    uint8_t type_byte = static_cast<uint8_t>(r.read(8, "chunk number type"));
    if (type_byte == 0) break;  // termination; later bytes are not the file's
    auto dtype = dtype_from_byte(type_byte);
    if (!dtype) fail("corrupt chunk ", f.chunks.size(), " at byte ", chunk_start, ": unknown number type byte ", unsigned(type_byte));
    if (f.header.uniform_dtype && *dtype != *f.header.uniform_dtype)
      fail("corrupt chunk ", f.chunks.size(), " at byte ", chunk_start, ": number type ", dtype_name(*dtype),
           " differs from the file's uniform type ", dtype_name(*f.header.uniform_dtype));
    size_t n = 1 + static_cast<size_t>(r.read(24, "chunk count"));
    output_bytes += n * dtype_bytes(*dtype);
    if (output_bytes > max_output_bytes)
      fail_as(ErrorKind::OutputLimit, "output limit: chunk ", f.chunks.size(), " would bring the decoded size to ", output_bytes,
           " bytes, over the limit of ", max_output_bytes);
    if (keep_values && f.chunks.empty() && f.header.n_hint) {
      // n_hint is only a claim: reserve for it at this chunk's width (not the widest type: a
      // u8 file would hold 8 bytes of scratch per value), only as far as the input could
      // plausibly expand, and within the caller's limit. Capped before multiplying, since
      // n_hint may be 2^64 - 1.
      uint64_t hinted = std::min<uint64_t>(*f.header.n_hint, uint64_t(file.size()) * 8) * dtype_bytes(*dtype);
      f.values.reserve(size_t(std::min<uint64_t>(hinted, max_output_bytes)));
    }
    StandaloneChunk c{*dtype, n, chunk_start, 0, 0, {}, f.values.size()};
    try {
      ChunkDecoder decoder(read_chunk_meta(r, *dtype, f.header.format));
      c.page_start = r.byte_pos();
      decoder.decode_page(r, n, f.values);
      if (!keep_values) f.values.clear();
      c.meta = decoder.meta();
    } catch (const DecodeError& e) {
      fail("chunk ", f.chunks.size(), " (", dtype_name(*dtype), ", n=", n, ", at byte ", chunk_start, "): ", e.what());
    }
    c.byte_end = r.byte_pos();
    f.chunks.push_back(std::move(c));
  }
  if (!keep_values) f.values.shrink_to_fit();
}

namespace {

void write_chunk_meta(JsonWriter& w, const ChunkMeta& m) {
  w.field("dtype", dtype_name(m.dtype));
  w.key("mode").begin_object().field("name", mode_name(m.mode.kind));
  switch (m.mode.kind) {
    case ModeKind::IntMult: w.field("base", m.mode.base); break;
    case ModeKind::FloatMult: {
      unsigned bits = dtype_bits(m.dtype);
      uint64_t fbits;
      double base;
      if (bits == 16) {
        fbits = from_latent_ordered<uint16_t, NumKind::Float>(uint16_t(m.mode.base));
        base = f16_bits_to_f32(uint16_t(fbits));
      } else if (bits == 32) {
        fbits = from_latent_ordered<uint32_t, NumKind::Float>(uint32_t(m.mode.base));
        base = numdecode::bit_cast<float>(uint32_t(fbits));
      } else {
        fbits = from_latent_ordered<uint64_t, NumKind::Float>(m.mode.base);
        base = numdecode::bit_cast<double>(fbits);
      }
      w.field("base", base);
      break;
    }
    case ModeKind::FloatQuant: w.field("k", m.mode.k); break;
    case ModeKind::Dict: w.field("dictLength", m.mode.dict.size()); break;
    default: break;
  }
  w.end_object();
  const Delta& d = m.delta;
  w.key("delta").begin_object().field("name", delta_name(d.kind));
  switch (d.kind) {
    case DeltaKind::Consecutive:
      w.field("order", d.order).field("secondaryUsesDelta", d.secondary_uses_delta);
      break;
    case DeltaKind::Lookback:
      w.field("windowNLog", d.window_n_log).field("stateNLog", d.state_n_log);
      w.field("secondaryUsesDelta", d.secondary_uses_delta);
      break;
    case DeltaKind::Conv1:
      w.field("order", d.order).field("quantization", d.quantization).field("bias", d.bias);
      w.key("weights").begin_array();
      for (int64_t x : d.weights) w.value(x);
      w.end_array();
      break;
    default: break;
  }
  w.end_object();
  w.key("latentVars").begin_array();
  for (const auto& v : m.vars) {
    w.begin_object().field("key", var_key_name(v.key)).field("latentBits", v.latent_bits);
    w.field("ansSizeLog", v.ans_size_log);
    w.key("bins").begin_array();
    for (const Bin& b : v.bins)
      w.begin_object().field("weight", b.weight).field("lower", b.lower).field("offsetBits", b.offset_bits).end_object();
    w.end_array().end_object();
  }
  w.end_array();
}

}  // namespace

std::string chunk_meta_json(const ChunkMeta& meta) {
  JsonWriter w;
  w.begin_object();
  write_chunk_meta(w, meta);
  w.end_object();
  return w.str();
}

std::string inspect_json(const StandaloneFile& f) {
  JsonWriter w;
  w.begin_object();
  w.key("formatVersion").begin_object().field("major", f.header.format.major).field("minor", f.header.format.minor).end_object();
  w.field("standaloneVersion", f.header.standalone_version);
  w.key("uniformDtype");
  if (f.header.uniform_dtype) w.value(dtype_name(*f.header.uniform_dtype));
  else w.null();
  w.key("nHint");
  if (f.header.n_hint) w.value(*f.header.n_hint);
  else w.null();
  size_t total = 0;
  for (const auto& c : f.chunks) total += c.n;
  w.field("n", total);
  w.key("chunks").begin_array();
  for (const auto& c : f.chunks) {
    w.begin_object().field("n", c.n);
    w.key("byteRange").begin_array().value(c.byte_start).value(c.byte_end).end_array();
    write_chunk_meta(w, c.meta);
    w.end_object();
  }
  w.end_array();
  w.end_object();
  return w.str();
}

}  // namespace numdecode::pco
