// libFuzzer target: arbitrary bytes as an f32 and as an f64 ALP page.
// Checks: no crash / out-of-bounds read (ASan), SIMD and scalar kernels agree, random access agrees
// with the full decode, and whatever decodes survives encode -> decode bit-exactly.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "alp/alp.hpp"
#include "core/error.hpp"

namespace {

using namespace numdecode;
using namespace numdecode::alp;

template <class T>
bool same_bits(const T* a, const T* b, size_t n) {
  return n == 0 || std::memcmp(a, b, n * sizeof(T)) == 0;
}

// A valid page may expand ~600-fold (a 13-byte vector holds 1024 values; more with a larger
// log_vector_size): pages claiming more output than this only get their random access checked.
constexpr size_t kMaxOutputBytes = size_t{64} << 20;

template <class T>
void fuzz_as(const std::vector<uint8_t>& page) {
  ValueVector<T> values;
  try {
    const PageReader<T> reader{Bytes(page)};
    if (reader.size() * sizeof(T) > kMaxOutputBytes) {
      const ValueVector<T> first = reader.decode_vector(0);
      const ValueVector<T> again = reader.decode_vector(0, Kernel::kScalar);
      if (!same_bits(first.data(), again.data(), first.size())) std::abort();
      const ValueVector<T> last = reader.decode_vector(reader.num_vectors() - 1);
      (void)last;
      return;
    }
    {
      // The wasm binding's path checks each vector only as it decodes it (exception positions
      // while patching): on any page it must stay inside an exact-size output, and agree below.
      ValueVector<T> streamed(reader.size());
      try {
        reader.decode_range_streaming(0, reader.size(), streamed.data());
      } catch (const DecodeError&) {
        streamed.clear();
      }
      // js/alp.js checks a page with check_range before decoding it into memory the caller keeps:
      // it must refuse exactly the pages the full decode refuses.
      bool checked = true;
      try {
        reader.check_range(0, reader.size());
      } catch (const DecodeError&) {
        checked = false;
      }
      try {
        values = reader.decode_all(Kernel::kAuto);
      } catch (const DecodeError&) {
        if (checked) std::abort();
        throw;
      }
      if (!checked) std::abort();
      if (streamed.size() != values.size() || !same_bits(streamed.data(), values.data(), values.size())) std::abort();
    }
    const ValueVector<T> scalar = reader.decode_all(Kernel::kScalar);
    if (scalar.size() != values.size() || !same_bits(scalar.data(), values.data(), values.size())) std::abort();
    if (reader.num_vectors() > 0) {
      const size_t k = page.size() % reader.num_vectors();
      const ValueVector<T> one = reader.decode_vector(k);
      if (!same_bits(one.data(), values.data() + (k << reader.header().log_vector_size), one.size())) std::abort();
      const size_t start = values.size() / 3, end = values.size() - values.size() / 5;
      const ValueVector<T> range = reader.decode_range(start, end);
      if (!same_bits(range.data(), values.data() + start, range.size())) std::abort();
    }
  } catch (const DecodeError&) {
    return;
  }
  EncodeOptions options;
  options.layout = page.size() % 2 ? Layout::kMerged : Layout::kDraft;
  const std::vector<uint8_t> again = encode<T>(std::span<const T>(values), options);
  const ValueVector<T> back = PageReader<T>(Bytes(again)).decode_all();
  if (back.size() != values.size() || !same_bits(back.data(), values.data(), values.size())) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // An exact-size heap copy, so that any read past the end is caught.
  const std::vector<uint8_t> page(data, data + size);
  fuzz_as<float>(page);
  fuzz_as<double>(page);
  return 0;
}
