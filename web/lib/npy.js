// NumPy's .npy format (version 1.0), so that a slice shown on the page opens with numpy.load():
// the magic "\x93NUMPY", the version, a little-endian header length, a Python dict literal naming
// the dtype, order and shape (padded with spaces to a multiple of 64 bytes, ending in a newline),
// then the values as stored, little-endian, in C order.

const DESCR = new Map([
  [Int8Array, '|i1'], [Uint8Array, '|u1'], [Int16Array, '<i2'], [Uint16Array, '<u2'], [Int32Array, '<i4'], [Uint32Array, '<u4'],
  [BigInt64Array, '<i8'], [BigUint64Array, '<u8'], [Float32Array, '<f4'], [Float64Array, '<f8'],
]);

/** The NumPy dtype string of a typed array ('<f4', ...); float16 arrives as its bits, so say so with float16Bits. */
export function npyDescr(values, { float16Bits = false } = {}) {
  if (float16Bits || (typeof Float16Array === 'function' && values instanceof Float16Array)) return '<f2';
  const descr = DESCR.get(values.constructor);
  if (!descr) throw new TypeError(`no NumPy dtype for ${values.constructor.name}`);
  return descr;
}

/**
 * A .npy file of `values` (C order) with `shape`.
 * @param {ArrayBufferView} values typed array, little-endian (as every platform the page runs on)
 * @param {number[]} shape
 * @param {{float16Bits?: boolean}} [options]
 * @returns {Blob}
 */
export function npyBlob(values, shape, options = {}) {
  const count = shape.reduce((a, b) => a * b, 1);
  if (count !== values.length) throw new RangeError(`npy: shape ${shape.join('x')} holds ${count} values, not ${values.length}`);
  const tuple = shape.length === 1 ? `(${shape[0]},)` : `(${shape.join(', ')})`;
  const dict = `{'descr': '${npyDescr(values, options)}', 'fortran_order': False, 'shape': ${tuple}, }`;
  const unpadded = 10 + dict.length + 1;
  const header = dict + ' '.repeat((64 - (unpadded % 64)) % 64) + '\n';
  const head = new Uint8Array(10 + header.length);
  head.set([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 1, 0]); // \x93NUMPY, version 1.0
  new DataView(head.buffer).setUint16(8, header.length, true);
  for (let i = 0; i < header.length; i++) head[10 + i] = header.charCodeAt(i);
  return new Blob([head, new Uint8Array(values.buffer, values.byteOffset, values.byteLength)], { type: 'application/octet-stream' });
}
