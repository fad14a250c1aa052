// An IEEE 754 half's bits as a number, computed here from the bits alone: the demo tests' own
// reference for what the page shows of float16 values (not the code under test).

/** @param {number} bits a float16's 16 bits */
export function halfToNumber(bits) {
  const exp = (bits >> 10) & 31;
  const frac = bits & 1023;
  const sign = bits >> 15 ? -1 : 1;
  if (exp === 31) return frac ? NaN : sign * Infinity;
  return sign * (exp ? 2 ** (exp - 15) * (1 + frac / 1024) : 2 ** -14 * (frac / 1024));
}
