// Slices of a Zarr array: parse the NumPy-like text ("0,:,10:20"), turn it into a zarrita
// selection, and bring zarrita's result into C order (a v2 order "F" array comes back with
// Fortran strides; zarrita's `stride` says so).

/**
 * Parses a slice such as "0,:,10:20" or "-1, 5:, ::2" against a shape. Missing trailing
 * dimensions mean ":". Integers pick one index (the dimension drops out), ranges keep it.
 * @returns {{index?: number, start?: number, stop?: number, step?: number}[]} one entry per dimension
 */
export function parseSlice(text, shape) {
  const parts = text === undefined || text === null || String(text).trim() === '' ? [] : String(text).split(',');
  if (parts.length > shape.length) {
    throw new RangeError(`slice ${JSON.stringify(text)} has ${parts.length} entries but the array has ${shape.length} dimensions`);
  }
  const out = [];
  for (let d = 0; d < shape.length; d++) {
    const n = shape[d];
    const part = (parts[d] ?? ':').trim();
    const bad = (why) => new RangeError(`slice ${JSON.stringify(text)}, dimension ${d} (size ${n}): ${JSON.stringify(part)} ${why}`);
    const int = (s, what) => {
      if (!/^-?\d+$/.test(s)) throw bad(`has a ${what} that is not an integer`);
      return Number(s);
    };
    if (!part.includes(':')) {
      let i = int(part, 'index');
      if (i < 0) i += n;
      if (i < 0 || i >= n) throw bad(`is outside 0..${n - 1}`);
      out.push({ index: i });
      continue;
    }
    const fields = part.split(':');
    if (fields.length > 3) throw bad('has more than two colons');
    const step = fields[2] === undefined || fields[2].trim() === '' ? 1 : int(fields[2].trim(), 'step');
    if (step <= 0) throw bad('needs a positive step');
    const clamp = (s, dflt) => {
      if (s === undefined || s.trim() === '') return dflt;
      let v = int(s.trim(), 'bound');
      if (v < 0) v += n;
      return Math.max(0, Math.min(n, v));
    };
    const start = clamp(fields[0], 0);
    const stop = Math.max(start, clamp(fields[1], n));
    out.push({ start, stop, step });
  }
  return out;
}

/** The shape of what a parsed slice selects (integer-indexed dimensions drop out). */
export function sliceShape(parsed) {
  return parsed.filter((p) => p.index === undefined).map((p) => Math.ceil((p.stop - p.start) / p.step));
}

/** A parsed slice as text ("0,:,10:20"), for messages and file names. */
export function sliceText(parsed, shape) {
  return parsed
    .map((p, d) => {
      if (p.index !== undefined) return String(p.index);
      const step = p.step === 1 ? '' : `:${p.step}`;
      if (p.start === 0 && p.stop === shape[d]) return `:${step}`;
      return `${p.start}:${p.stop}${step}`;
    })
    .join(',');
}

/** The zarrita selection for a parsed slice. */
export function toSelection(zarr, parsed) {
  return parsed.map((p) => (p.index !== undefined ? p.index : zarr.slice(p.start, p.stop, p.step)));
}

/**
 * For each dimension, the range of chunk indices [first, last] a parsed slice touches (for a
 * sharded array pass the shard shape to count shards, the inner chunk shape to count chunks).
 */
export function chunkRanges(parsed, chunkShape) {
  return parsed.map((p, d) => {
    const c = chunkShape[d];
    if (p.index !== undefined) return [Math.floor(p.index / c), Math.floor(p.index / c)];
    if (p.stop <= p.start) return [0, -1];
    const last = p.start + Math.floor((p.stop - 1 - p.start) / p.step) * p.step;
    return [Math.floor(p.start / c), Math.floor(last / c)];
  });
}

/** How many chunks chunkRanges() covers (steps that skip whole chunks are not subtracted). */
export function chunkCount(ranges) {
  return ranges.reduce((n, [a, b]) => n * Math.max(0, b - a + 1), 1);
}

/** zarrita's {data, shape, stride} as a C-order typed array of the same class. */
export function toCOrder({ data, shape, stride }) {
  const n = shape.reduce((a, b) => a * b, 1);
  let cOrder = true;
  for (let d = shape.length - 1, step = 1; d >= 0; d--) {
    if (shape[d] > 1 && stride[d] !== step) cOrder = false;
    step *= shape[d];
  }
  if (cOrder && data.length === n) return data;
  const out = new data.constructor(n);
  const index = new Array(shape.length).fill(0);
  let at = 0;
  for (let flat = 0; flat < n; flat++) {
    out[flat] = data[at];
    // Odometer over the indices: add the stride of the dimension that moves, rewind the others.
    for (let d = shape.length - 1; d >= 0; d--) {
      if (++index[d] < shape[d]) {
        at += stride[d];
        break;
      }
      at -= stride[d] * (shape[d] - 1);
      index[d] = 0;
    }
  }
  return out;
}
