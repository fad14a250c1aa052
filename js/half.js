// IEEE half-precision (f16) values arrive as their 16 bits (Pco f16, float16 Zarr arrays where the
// engine has no Float16Array): the number a bit pattern stands for, exact in a double. Shared by
// the CLI, the Zarr explorer and the demo.

/** The number an IEEE half-precision bit pattern stands for (exact in a double). */
export function halfToNumber(bits) {
  const sign = bits & 0x8000 ? -1 : 1;
  const exp = (bits >> 10) & 0x1f;
  const frac = bits & 0x3ff;
  if (exp === 0) return sign * frac * 2 ** -24;
  if (exp === 31) return frac ? NaN : sign * Infinity;
  return sign * (1024 + frac) * 2 ** (exp - 25);
}
