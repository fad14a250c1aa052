// Puts one chunk's share of a selection into the output. Everything here works in the array's
// stored axis order (C order, or F / a transpose order reversed into C order): there the output is
// C-contiguous and so is each packed box, so a box lands as rows of whole runs. Runs with the
// main thread and in workers (SharedArrayBuffer outputs) alike.

/**
 * The output's geometry in stored order: `shape` (output dimensions, stored order) and `strides`
 * (elements, C order over that shape).
 * @param {number[]} shape
 */
export function outputGeometry(shape) {
  const strides = new Array(shape.length);
  let step = 1;
  for (let k = shape.length - 1; k >= 0; k--) {
    strides[k] = step;
    step *= shape[k];
  }
  return { shape, strides, size: step };
}

// Calls run(destinationStart, length) for each contiguous run of a box of `counts` starting at
// element `base` of an output of `geometry`, in the box's C order.
function eachRun(geometry, base, counts, run) {
  const { shape, strides } = geometry;
  // The innermost axis the box does not cover whole; the axes inside it are contiguous.
  let axis = counts.length - 1;
  while (axis >= 0 && counts[axis] === shape[axis]) axis--;
  if (axis < 0) {
    run(base, counts.reduce((a, b) => a * b, 1));
    return;
  }
  const length = counts[axis] * strides[axis];
  if (axis === 0) {
    run(base, length);
    return;
  }
  const at = new Array(axis).fill(0);
  let offset = base;
  for (;;) {
    run(offset, length);
    let a = axis - 1;
    while (a >= 0 && ++at[a] === counts[a]) {
      offset -= (counts[a] - 1) * strides[a];
      at[a--] = 0;
    }
    if (a < 0) return;
    offset += strides[a];
  }
}

/**
 * Copies a packed box (C order over `counts`, `width` bytes a value) into the output's bytes.
 * @param {Uint8Array} out the output's bytes (any ArrayBuffer or SharedArrayBuffer)
 * @param {number} width bytes per value
 * @param {{shape: number[], strides: number[]}} geometry from outputGeometry
 * @param {number} base the box's first element in the output
 * @param {number[]} counts the box's extent per output dimension (stored order)
 * @param {Uint8Array} box the packed values' bytes
 */
export function placeBox(out, width, geometry, base, counts, box) {
  // set() copies as fast into a SharedArrayBuffer as into an ArrayBuffer (Node 20 and Chromium 156:
  // 17-19 ms for 15.6 M values in runs of 180, where a loop over words took 39-60 ms).
  let from = 0;
  eachRun(geometry, base, counts, (start, length) => {
    const bytes = length * width;
    out.set(box.subarray(from, from + bytes), start * width);
    from += bytes;
  });
}

/** Fills a box of the output (a typed array of the array's class) with `value` (the fill value). */
export function fillBox(out, geometry, base, counts, value) {
  eachRun(geometry, base, counts, (start, length) => out.fill(value, start, start + length));
}

// Same-width unsigned views copy values bit for bit (a NaN's payload, float16 bits).
function wordsOf(data) {
  const width = data.BYTES_PER_ELEMENT;
  const Type = width === 1 ? Uint8Array : width === 2 ? Uint16Array : Uint32Array;
  return new Type(data.buffer, data.byteOffset, (data.length * width) / Type.BYTES_PER_ELEMENT);
}

/**
 * Packs the box of a chunk that zarrita's codec pipeline decoded ({data, shape, stride}, any
 * layout) into C order of the box in stored order. For chunks numdecode does not decode itself.
 * @param {{data: ArrayBufferView, stride: number[]}} chunk
 * @param {number[]} order the stored axis order
 * @param {{start: number, step: number, count: number}[]} parts the box per array axis
 * @returns {Uint8Array} the packed bytes
 */
export function packDecodedChunk(chunk, order, parts) {
  const width = chunk.data.BYTES_PER_ELEMENT;
  const words = width === 8 ? 2 : 1;
  const src = wordsOf(chunk.data);
  const counts = order.map((a) => parts[a].count);
  const total = counts.reduce((a, b) => a * b, 1);
  const packed = new Uint8Array(total * width);
  const dst = new src.constructor(packed.buffer);
  const first = order.reduce((sum, a) => sum + parts[a].start * chunk.stride[a], 0);
  const jumps = order.map((a) => parts[a].step * chunk.stride[a]);
  const at = new Array(order.length).fill(0);
  let offset = first;
  for (let i = 0; i < total; i++) {
    for (let w = 0; w < words; w++) dst[i * words + w] = src[offset * words + w];
    let k = order.length - 1;
    while (k >= 0 && ++at[k] === counts[k]) {
      offset -= (counts[k] - 1) * jumps[k];
      at[k--] = 0;
    }
    if (k < 0) break;
    offset += jumps[k];
  }
  return packed;
}
