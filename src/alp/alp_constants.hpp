// Per-type constants of ALP (Parquet proposal). The decode tables are the exact ones the Arrow
// reference multiplies by: 10^f converted from an exact integer, and the correctly rounded
// literal 10^-e in the value's own precision (see shared/notes/alp-notes.md §4).
#pragma once
#include <cstdint>

namespace numdecode::alp {

template <class T>
struct AlpTraits;

template <>
struct AlpTraits<float> {
  using Signed = int32_t;
  using Unsigned = uint32_t;
  static constexpr unsigned kMaxExponent = 10;
  static constexpr unsigned kMaxBitWidth = 32;
  static constexpr unsigned kForInfoBytes = 5;  // frame_of_reference u32 + bit_width u8
  static constexpr const char* kName = "f32";
  // Largest float magnitudes that still convert to int32 (the encoder forces the rest to exceptions).
  static constexpr float kMaxEncodable = 2147483520.0f;
  static constexpr float kPow10[kMaxExponent + 1] = {1e0f, 1e1f, 1e2f, 1e3f, 1e4f, 1e5f,
                                                     1e6f, 1e7f, 1e8f, 1e9f, 1e10f};
  static constexpr float kPow10Neg[kMaxExponent + 1] = {1e-0f, 1e-1f, 1e-2f, 1e-3f, 1e-4f, 1e-5f,
                                                        1e-6f, 1e-7f, 1e-8f, 1e-9f, 1e-10f};
};

template <>
struct AlpTraits<double> {
  using Signed = int64_t;
  using Unsigned = uint64_t;
  static constexpr unsigned kMaxExponent = 18;
  static constexpr unsigned kMaxBitWidth = 64;
  static constexpr unsigned kForInfoBytes = 9;  // frame_of_reference u64 + bit_width u8
  static constexpr const char* kName = "f64";
  static constexpr double kMaxEncodable = 9223372036854774784.0;
  static constexpr double kPow10[kMaxExponent + 1] = {
      1e0, 1e1, 1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8, 1e9,
      1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18};
  static constexpr double kPow10Neg[kMaxExponent + 1] = {
      1e-0,  1e-1,  1e-2,  1e-3,  1e-4,  1e-5,  1e-6,  1e-7,  1e-8, 1e-9,
      1e-10, 1e-11, 1e-12, 1e-13, 1e-14, 1e-15, 1e-16, 1e-17, 1e-18};
};

// Sizes shared by both layouts.
constexpr unsigned kAlpInfoBytes = 4;  // exponent u8, factor u8, num_exceptions u16
constexpr unsigned kOffsetBytes = 4;   // one u32 per vector
constexpr unsigned kMinLogVectorSize = 3;
constexpr unsigned kMaxLogVectorSize = 15;  // exception positions are u16
constexpr unsigned kDefaultLogVectorSize = 10;

}  // namespace numdecode::alp
