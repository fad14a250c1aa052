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
