#include "pco/encode/standalone_writer.hpp"

#include <bit>
#include <stdexcept>
#include <string>

#include "core/bit_writer.hpp"
#include "pco/encode/chunk_encoder.hpp"
#include "pco/encode/meta_writer.hpp"

namespace numdecode::pco {

namespace {

constexpr uint8_t kMagic[4] = {'p', 'c', 'o', '!'};
constexpr unsigned kStandaloneVersion = 3;

void write_header(std::vector<uint8_t>& out, DType dtype, uint64_t n) {
  BitWriter w(out);
  for (uint8_t b : kMagic) w.write(b, 8);
  w.write(kStandaloneVersion, 8);
  w.write(uint8_t(dtype), 8);
  // n as a varint: 6 bits of its bit count - 1, then that many bits.
  const unsigned power = n == 0 ? 1 : unsigned(std::bit_width(n));
  w.write(power - 1, 6);
  w.write(n, power);
  w.align();
  write_wrapped_header(w);
  w.finish();
}

}  // namespace

std::vector<uint8_t> encode_standalone(DType dtype, Bytes values, const ChunkConfig& config) {
  const size_t width = dtype_bytes(dtype);
  if (values.size() % width != 0)
    throw std::invalid_argument("Pco encode: " + std::to_string(values.size()) + " bytes is not a whole number of " +
                                std::string(dtype_name(dtype)) + " values");
  const size_t n = values.size() / width;
  std::vector<uint8_t> out;
  out.reserve(64 + values.size() / 2);
  write_header(out, dtype, n);
  ChunkConfig chunk_config = config;
  size_t start = 0;
  for (size_t chunk_n : page_sizes(n, config)) {
    if (chunk_n > kMaxChunkN)
      throw std::invalid_argument("Pco encode: a chunk holds at most " + std::to_string(kMaxChunkN) + " numbers, got " +
                                  std::to_string(chunk_n));
    chunk_config.page_ns = {chunk_n};
    const ChunkEncoder chunk(dtype, values.subspan(start * width, chunk_n * width), chunk_config);
    {
      BitWriter w(out);
      w.write(uint8_t(dtype), 8);
      w.write(chunk_n - 1, 24);
      w.finish();
    }
    chunk.write_meta(out);
    chunk.write_page(0, out);
    start += chunk_n;
  }
  out.push_back(0);  // termination
  return out;
}

}  // namespace numdecode::pco
