// Numbers as exact values and text, shared by the CLI, the Zarr explorer and the demo: IEEE
// half-precision (f16) values arrive as their 16 bits (Pco f16, float16 Zarr arrays where the
// engine has no Float16Array), and an f32 prints as the shortest decimal that reads back as it.

/** The number an IEEE half-precision bit pattern stands for (exact in a double). */
export function halfToNumber(bits) {
  const sign = bits & 0x8000 ? -1 : 1;
  const exp = (bits >> 10) & 0x1f;
  const frac = bits & 0x3ff;
  if (exp === 0) return sign * frac * 2 ** -24;
  if (exp === 31) return frac ? NaN : sign * Infinity;
  return sign * (1024 + frac) * 2 ** (exp - 25);
}

/** Shortest decimal text that reads back as the same float32. */
export function formatF32(v) {
  if (Number.isNaN(v) || !Number.isFinite(v)) return String(v);
  if (v === 0) return Object.is(v, -0) ? '-0' : '0';
  for (let p = 1; p <= 9; p++) {
    const s = v.toPrecision(p);
    if (Math.fround(Number(s)) === v) return String(Number(s));
  }
  return String(v);
}

// v rounded to an integer, ties to even (v >= 0).
function roundHalfEven(v) {
  const f = Math.floor(v);
  const d = v - f;
  return d > 0.5 || (d === 0.5 && f % 2 === 1) ? f + 1 : f;
}

/** The IEEE half-precision bits nearest to x (ties to even; NaN as the quiet NaN 0x7e00). */
export function numberToHalf(x) {
  if (Number.isNaN(x)) return 0x7e00;
  const sign = x < 0 || Object.is(x, -0) ? 0x8000 : 0;
  const a = Math.abs(x);
  if (a >= 65520) return sign | 0x7c00; // past the largest half (65504) by half a step or more: infinity
  if (a < 2 ** -14) return sign | roundHalfEven(a * 2 ** 24); // subnormal (1024 rounds up to the smallest normal)
  let e = Math.floor(Math.log2(a));
  if (2 ** e > a) e--;
  else if (2 ** (e + 1) <= a) e++;
  // 11 significant bits; a carry to 2048 moves into the next exponent, as the bits add.
  return sign | (((e + 15) << 10) + (roundHalfEven(a * 2 ** (10 - e)) - 1024));
}
