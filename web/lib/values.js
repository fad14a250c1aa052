// Value helpers shared by the page and its decode worker: exact text for each dtype, summary
// statistics, histograms and plot-ready copies. Nothing here decodes; it only looks at arrays
// the numdecode API returned.

const F32 = new Float32Array(1);
const U32_OF_F32 = new Uint32Array(F32.buffer);

import { formatF32, halfToNumber } from '../../js/number-text.js';

export { formatF32, halfToNumber };


/** Exact text of one value of dtype (f16 as the number its bits stand for). */
export function formatValue(dtype, v) {
  if (dtype === 'f32') return formatF32(v);
  if (dtype === 'f16') return formatValue('f64', halfToNumber(v));
  if (typeof v === 'number' && v === 0 && Object.is(v, -0)) return '-0';
  return String(v);
}

/** Rounded text for axis labels and means (not for exact values). */
export function formatApprox(v) {
  if (!Number.isFinite(v)) return String(v);
  if (v === 0) return '0';
  const a = Math.abs(v);
  if (a >= 1e6 || a < 1e-3) return v.toExponential(3).replace(/\.?0+e/, 'e');
  return String(Number(v.toPrecision(6)));
}

export function isFloat(dtype) {
  return dtype === 'f16' || dtype === 'f32' || dtype === 'f64';
}

/** A Float64Array copy of any decoded array, for plotting (64-bit integers may round). */
export function toPlotArray(dtype, values) {
  const out = new Float64Array(values.length);
  if (dtype === 'f16') {
    for (let i = 0; i < values.length; i++) out[i] = halfToNumber(values[i]);
  } else if (dtype === 'i64' || dtype === 'u64') {
    for (let i = 0; i < values.length; i++) out[i] = Number(values[i]);
  } else {
    out.set(values);
  }
  return out;
}

/**
 * Summary of one decoded array: count, NaN count, exact min/max (as text, compared in the
 * array's own type so 64-bit integers stay exact), mean and standard deviation of the
 * finite values (as doubles). `plot` is the same values as doubles.
 */
export function summarize(dtype, values, plot) {
  const n = values.length;
  let nan = 0;
  let minI = -1;
  let maxI = -1;
  if (dtype === 'i64' || dtype === 'u64') {
    if (n > 0) {
      let lo = values[0];
      let hi = values[0];
      minI = 0;
      maxI = 0;
      for (let i = 1; i < n; i++) {
        const v = values[i];
        if (v < lo) {
          lo = v;
          minI = i;
        } else if (v > hi) {
          hi = v;
          maxI = i;
        }
      }
    }
  } else {
    // Floats compare as doubles (f16 through `plot`); NaN is counted, never a min or max.
    const src = dtype === 'f16' ? plot : values;
    let lo = Infinity;
    let hi = -Infinity;
    for (let i = 0; i < n; i++) {
      const v = src[i];
      if (v !== v) {
        nan++;
        continue;
      }
      if (minI < 0 || v < lo) {
        lo = v;
        minI = i;
      }
      if (maxI < 0 || v > hi) {
        hi = v;
        maxI = i;
      }
    }
  }
  let sum = 0;
  let finite = 0;
  for (let i = 0; i < n; i++) {
    const v = plot[i];
    if (Number.isFinite(v)) {
      sum += v;
      finite++;
    }
  }
  const mean = finite ? sum / finite : NaN;
  let sq = 0;
  for (let i = 0; i < n; i++) {
    const v = plot[i];
    if (Number.isFinite(v)) sq += (v - mean) * (v - mean);
  }
  return {
    dtype,
    count: n,
    nan,
    min: minI < 0 ? null : formatValue(dtype, values[minI]),
    max: maxI < 0 ? null : formatValue(dtype, values[maxI]),
    minAt: minI,
    maxAt: maxI,
    mean: finite ? mean : null,
    std: finite ? Math.sqrt(sq / finite) : null,
  };
}

/** Equal-width histogram of the finite values: {lo, hi, counts}. */
export function histogram(plot, bins = 60) {
  let lo = Infinity;
  let hi = -Infinity;
  for (let i = 0; i < plot.length; i++) {
    const v = plot[i];
    if (Number.isFinite(v)) {
      if (v < lo) lo = v;
      if (v > hi) hi = v;
    }
  }
  const counts = new Float64Array(bins);
  if (lo > hi) return { lo: 0, hi: 0, counts: new Float64Array(0) };
  const width = hi - lo;
  if (width === 0 || !Number.isFinite(width)) {
    return { lo, hi, counts: Float64Array.of(plot.reduce((s, v) => s + (Number.isFinite(v) ? 1 : 0), 0)) };
  }
  for (let i = 0; i < plot.length; i++) {
    const v = plot[i];
    if (!Number.isFinite(v)) continue;
    let b = Math.floor(((v - lo) / width) * bins);
    if (b >= bins) b = bins - 1;
    counts[b]++;
  }
  return { lo, hi, counts };
}

/** Bit pattern of an f32 (to compare values bit-exactly, NaN payloads and -0 included). */
export function f32Bits(v) {
  F32[0] = v;
  return U32_OF_F32[0];
}
