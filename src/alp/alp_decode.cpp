// Page parsing, validation and decoding (see alp.hpp for the layout).
#include <algorithm>
#include <cstring>

#include "alp/alp.hpp"
#include "alp/alp_kernels.hpp"
#include "core/error.hpp"

namespace numdecode::alp {

const char* layout_name(Layout layout) { return layout == Layout::kDraft ? "draft" : "merged"; }

namespace {

PageHeader parse_header(Bytes page, unsigned for_info_bytes) {
  PageHeader h;
  if (page.empty()) fail("ALP page is empty: a header needs 8 bytes (draft layout) or 7 (merged layout)");
  const unsigned first = page[0];
  if (first == 1) {
    h.layout = Layout::kDraft;
    h.header_bytes = 8;
  } else if (first == 0) {
    h.layout = Layout::kMerged;
    h.header_bytes = 7;
  } else {
    fail("ALP page: unsupported first byte ", first,
         " (expected 1 = draft layout version byte, or 0 = merged layout compression mode)");
  }
  if (page.size() < h.header_bytes)
    fail("ALP page: ", page.size(), " bytes is shorter than the ", h.header_bytes, "-byte ",
         layout_name(h.layout), " header");
  const unsigned f = h.layout == Layout::kDraft ? 1 : 0;  // first field after the version byte
  h.version = h.layout == Layout::kDraft ? first : 0;
  h.compression_mode = page[f];
  h.integer_encoding = page[f + 1];
  h.log_vector_size = page[f + 2];
  const uint32_t raw_count = load_le<uint32_t>(page.data() + f + 3);
  const char* where = h.layout == Layout::kDraft ? "ALP page (draft layout)" : "ALP page (merged layout)";
  if (h.compression_mode != 0)
    fail_unsupported(where, ": unsupported compression mode ", h.compression_mode, " (only 0 = ALP)");
  if (h.integer_encoding != 0)
    fail_unsupported(where, ": unsupported integer encoding ", h.integer_encoding, " (only 0 = FOR + bit-packing)");
  if (h.log_vector_size < kMinLogVectorSize || h.log_vector_size > kMaxLogVectorSize)
    fail(where, ": log_vector_size ", h.log_vector_size, " out of range [", kMinLogVectorSize, ", ",
         kMaxLogVectorSize, "]");
  if (h.layout == Layout::kMerged && static_cast<int32_t>(raw_count) < 0)
    fail(where, ": num_elements ", static_cast<int32_t>(raw_count), " is negative");
  h.num_elements = raw_count;
  h.vector_size = 1u << h.log_vector_size;
  const uint64_t num_vectors = (uint64_t{raw_count} + h.vector_size - 1) >> h.log_vector_size;
  // Checked before anything is sized from num_elements: every vector costs an offset and its metadata.
  const uint64_t body = page.size() - h.header_bytes;
  if (num_vectors * kOffsetBytes > body)
    fail(where, ": ", raw_count, " values in ", num_vectors, " vectors need a ", num_vectors * kOffsetBytes,
         "-byte offset array but only ", body, " bytes follow the header");
  if (num_vectors * (kOffsetBytes + kAlpInfoBytes + for_info_bytes) > body)
    fail(where, ": ", raw_count, " values in ", num_vectors, " vectors need at least ",
         num_vectors * (kOffsetBytes + kAlpInfoBytes + for_info_bytes),
         " bytes of offsets and vector metadata but only ", body, " bytes follow the header");
  h.num_vectors = static_cast<uint32_t>(num_vectors);
  return h;
}

// Names the first position outside the vector (the error path, kept out of the checking loop:
// fail() takes its parts by reference, which would keep the loop's counters in memory).
[[noreturn, gnu::noinline]] void fail_position(const VectorInfo& v, const uint8_t* positions) {
  unsigned j = 0;
  while (j + 1 < v.num_exceptions && load_le<uint16_t>(positions + 2 * j) < v.num_values) ++j;
  const unsigned pos = load_le<uint16_t>(positions + 2 * j);
  fail("ALP vector ", v.index, ": exception ", j, " position ", pos, " is outside the vector's ", v.num_values,
       " values");
}

}  // namespace

template <class T>
PageReader<T>::PageReader(Bytes page) : page_(page) {
  header_ = parse_header(page, AlpTraits<T>::kForInfoBytes);
  offsets_start_ = header_.header_bytes;
}

template <class T>
VectorInfo PageReader<T>::vector_info(size_t k) const {
  const VectorInfo v = vector_layout(k);
  const uint8_t* positions = page_.data() + v.positions_offset;
  // A max reduction without an early exit (vectorized): a page may hold an exception for every fifth value.
  if (kernels::max_u16(positions, v.num_exceptions) >= v.num_values) fail_position(v, positions);
  return v;
}

template <class T>
VectorInfo PageReader<T>::vector_layout(size_t k) const {
  using Traits = AlpTraits<T>;
  const PageHeader& h = header_;
  if (k >= h.num_vectors) fail("ALP: vector ", k, " requested but the page has ", h.num_vectors, " vectors");
  const uint8_t* body = page_.data() + offsets_start_;
  const size_t body_size = page_.size() - offsets_start_;
  const size_t offsets_bytes = size_t{h.num_vectors} * kOffsetBytes;
  const size_t meta_bytes = kAlpInfoBytes + Traits::kForInfoBytes;

  VectorInfo v;
  v.index = static_cast<uint32_t>(k);
  v.first_value = uint64_t{k} << h.log_vector_size;
  v.num_values = static_cast<uint32_t>(std::min<uint64_t>(h.vector_size, h.num_elements - v.first_value));

  const uint32_t start = load_le<uint32_t>(body + k * kOffsetBytes);
  if (start < offsets_bytes)
    fail("ALP vector ", k, ": offset ", start, " points into the offset array (which ends at ", offsets_bytes, ")");
  if (start > body_size || body_size - start < meta_bytes)
    fail("ALP vector ", k, ": offset ", start, " out of bounds: its ", meta_bytes,
         "-byte metadata would end past the page body of ", body_size, " bytes");
  // The vector must end where the next one starts (offsets increase) or at the end of the page.
  size_t limit = body_size;
  const char* limit_name = "the end of the page";
  if (k + 1 < h.num_vectors) {
    const uint32_t next = load_le<uint32_t>(body + (k + 1) * kOffsetBytes);
    if (next <= start)
      fail("ALP vector ", k + 1, ": offset ", next, " is not greater than vector ", k, "'s offset ", start,
           " (offsets must increase)");
    if (next > body_size)
      fail("ALP vector ", k + 1, ": offset ", next, " out of bounds: the page body has ", body_size, " bytes");
    limit = next;
    limit_name = "the next vector";
  }

  const uint8_t* meta = body + start;
  v.offset = offsets_start_ + start;
  v.exponent = meta[0];
  v.factor = meta[1];
  v.num_exceptions = load_le<uint16_t>(meta + 2);
  if constexpr (sizeof(T) == 4) {
    v.frame_of_reference = load_le<uint32_t>(meta + 4);
  } else {
    v.frame_of_reference = load_le<uint64_t>(meta + 4);
  }
  v.bit_width = meta[4 + sizeof(T)];

  if (v.exponent > Traits::kMaxExponent)
    fail("ALP vector ", k, ": exponent ", v.exponent, " exceeds ", Traits::kMaxExponent, " for ", Traits::kName);
  if (v.factor > v.exponent)
    fail("ALP vector ", k, ": factor ", v.factor, " exceeds exponent ", v.exponent);
  if (v.bit_width > Traits::kMaxBitWidth)
    fail("ALP vector ", k, ": bit width ", v.bit_width, " exceeds ", Traits::kMaxBitWidth, " for ", Traits::kName);
  if (v.num_exceptions > v.num_values)
    fail("ALP vector ", k, ": ", v.num_exceptions, " exceptions but the vector holds only ", v.num_values,
         " values");

  const size_t packed_bytes = (size_t{v.num_values} * v.bit_width + 7) / 8;
  const size_t exception_bytes = size_t{v.num_exceptions} * (2 + sizeof(T));
  v.bytes = meta_bytes + packed_bytes + exception_bytes;
  if (v.bytes > limit - start)
    fail("ALP vector ", k, ": data truncated: ", v.num_values, " values at bit width ", v.bit_width, " and ",
         v.num_exceptions, " exceptions need ", v.bytes, " bytes but only ", limit - start,
         " are available before ", limit_name);
  v.packed_offset = v.offset + meta_bytes;
  v.positions_offset = v.packed_offset + packed_bytes;
  v.exceptions_offset = v.positions_offset + size_t{v.num_exceptions} * 2;
  return v;
}

template <class T>
void PageReader<T>::decode_checked_into(const VectorInfo& v, T* out, Kernel kernel) const {
  using Traits = AlpTraits<T>;
  const uint8_t* packed = page_.data() + v.packed_offset;
  const uint8_t* end = page_.data() + page_.size();
  const T f10 = Traits::kPow10[v.factor];
  const T f10neg = Traits::kPow10Neg[v.exponent];
  if constexpr (sizeof(T) == 4) {
    const auto frame = static_cast<uint32_t>(v.frame_of_reference);
    if (kernel == Kernel::kScalar)
      kernels::decode_f32_scalar(packed, end, v.num_values, v.bit_width, frame, f10, f10neg, out);
    else
      kernels::decode_f32_simd(packed, end, v.num_values, v.bit_width, frame, f10, f10neg, out);
  } else {
    if (kernel == Kernel::kScalar)
      kernels::decode_f64_scalar(packed, end, v.num_values, v.bit_width, v.frame_of_reference, f10, f10neg, out);
    else
      kernels::decode_f64_simd(packed, end, v.num_values, v.bit_width, v.frame_of_reference, f10, f10neg, out);
  }
  // Exceptions are raw IEEE bytes (NaN payloads kept), patched over the decoded values; a repeated
  // position keeps the last value, like the reference. Positions are checked here (the streaming
  // decode has not checked them before), all at once, so that the patch loop has no branch.
  const uint8_t* positions = page_.data() + v.positions_offset;
  if (kernels::max_u16(positions, v.num_exceptions) >= v.num_values) fail_position(v, positions);
  kernels::patch_exceptions(out, positions, page_.data() + v.exceptions_offset, v.num_exceptions);
}

template <class T>
void PageReader<T>::decode_vector_into(size_t k, T* out, Kernel kernel) const {
  decode_checked_into(vector_info(k), out, kernel);
}

template <class T>
ValueVector<T> PageReader<T>::decode_vector(size_t k, Kernel kernel) const {
  const VectorInfo v = vector_info(k);
  ValueVector<T> out(v.num_values);
  decode_checked_into(v, out.data(), kernel);
  return out;
}

template <class T>
void PageReader<T>::check_bounds(size_t start, size_t end) const {
  if (start > end || end > header_.num_elements)
    fail("ALP: range [", start, ", ", end, ") is outside the page's ", header_.num_elements, " values");
}

template <class T>
void PageReader<T>::check_range(size_t start, size_t end) const {
  check_bounds(start, end);
  if (start == end) return;
  const unsigned lvs = header_.log_vector_size;
  for (size_t k = start >> lvs, last = (end - 1) >> lvs; k <= last; ++k) vector_info(k);
}

template <class T>
std::vector<VectorInfo> PageReader<T>::infos_for_range(size_t start, size_t end) const {
  check_bounds(start, end);
  std::vector<VectorInfo> infos;
  if (start == end) return infos;
  const unsigned lvs = header_.log_vector_size;
  const size_t first = start >> lvs, last = (end - 1) >> lvs;
  infos.reserve(last - first + 1);
  for (size_t k = first; k <= last; ++k) infos.push_back(vector_info(k));
  return infos;
}

template <class T>
void PageReader<T>::write_range(const std::vector<VectorInfo>& infos, size_t start, size_t end, T* out,
                                Kernel kernel) const {
  ValueVector<T> scratch;
  for (const VectorInfo& v : infos) {
    const size_t lo = std::max<size_t>(start, v.first_value);
    const size_t hi = std::min<size_t>(end, v.first_value + v.num_values);
    if (lo == v.first_value && hi == v.first_value + v.num_values) {
      decode_checked_into(v, out + (lo - start), kernel);
    } else {  // partly wanted: decode the whole vector aside and copy the wanted part
      scratch.resize(v.num_values);
      decode_checked_into(v, scratch.data(), kernel);
      std::copy(scratch.begin() + (lo - v.first_value), scratch.begin() + (hi - v.first_value), out + (lo - start));
    }
  }
}

template <class T>
void PageReader<T>::decode_range_into(size_t start, size_t end, T* out, Kernel kernel) const {
  write_range(infos_for_range(start, end), start, end, out, kernel);
}

template <class T>
ValueVector<T> PageReader<T>::decode_range(size_t start, size_t end, Kernel kernel) const {
  // Every touched vector is validated before the output is allocated: a bad page costs no big allocation.
  const std::vector<VectorInfo> infos = infos_for_range(start, end);
  ValueVector<T> out(end - start);
  write_range(infos, start, end, out.data(), kernel);
  return out;
}

template <class T>
void PageReader<T>::decode_range_streaming(size_t start, size_t end, T* out, Kernel kernel) const {
  check_bounds(start, end);
  if (start == end) return;
  const unsigned lvs = header_.log_vector_size;
  for (size_t k = start >> lvs, last = (end - 1) >> lvs; k <= last; ++k) {
    const size_t lo = k << lvs, hi = std::min<size_t>(header_.num_elements, (k + 1) << lvs);
    if (lo >= start && hi <= end) {
      decode_checked_into(vector_layout(k), out + (lo - start), kernel);
    } else {  // a vector the range cuts: decoded aside, the wanted part copied
      write_range({vector_info(k)}, std::max(start, lo), std::min(end, hi), out + (std::max(start, lo) - start), kernel);
    }
  }
}

template <class T>
ValueVector<T> PageReader<T>::decode_all(Kernel kernel) const {
  return decode_range(0, header_.num_elements, kernel);
}

template class PageReader<float>;
template class PageReader<double>;

ValueVector<float> decode_f32(Bytes page, Kernel kernel) { return PageReader<float>(page).decode_all(kernel); }
ValueVector<double> decode_f64(Bytes page, Kernel kernel) { return PageReader<double>(page).decode_all(kernel); }

}  // namespace numdecode::alp
