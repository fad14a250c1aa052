// NumPy .npy files (format versions 1, 2 and 3) as the typed array of their values: the header's
// descr names the dtype and byte order (big-endian values are swapped), shape the count; values
// come in the file's order (fortran_order tells which).
import { typedArrayFor } from '../dtypes.js';

const MAGIC = [0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59]; // \x93NUMPY
// NumPy's kind and size -> numdecode's dtype.
const DESCR = { i1: 'i8', u1: 'u8', i2: 'i16', u2: 'u16', f2: 'f16', i4: 'i32', u4: 'u32', f4: 'f32', i8: 'i64', u8: 'u64', f8: 'f64' };

/** True when bytes start with the .npy magic. */
export function isNpy(bytes) {
  return bytes.length >= MAGIC.length && MAGIC.every((b, i) => bytes[i] === b);
}

// One field of the header dict, as Python's repr writes it.
function field(header, name, pattern) {
  const m = header.match(new RegExp(`['"]${name}['"]\\s*:\\s*${pattern}`));
  if (m === null) throw new Error(`.npy header has no ${name}: ${header.trim()}`);
  return m[1];
}

/**
 * The values of a .npy file: { dtype, values, shape, fortranOrder }; f16 values as their bits.
 * Throws for dtypes Pco does not store (bool, complex, strings, structured arrays).
 */
export function readNpy(bytes) {
  if (!isNpy(bytes)) throw new Error('not a .npy file (no \\x93NUMPY magic)');
  const major = bytes[6];
  if (major < 1 || major > 3) throw new Error(`.npy format version ${major} is not one this reader knows (1, 2, 3)`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const headerLength = major === 1 ? view.getUint16(8, true) : view.getUint32(8, true);
  const start = major === 1 ? 10 : 12;
  if (start + headerLength > bytes.length) throw new Error('.npy header runs past the end of the file');
  const header = new TextDecoder(major === 3 ? 'utf-8' : 'latin1').decode(bytes.subarray(start, start + headerLength));
  const descr = field(header, 'descr', `['"]([^'"]*)['"]`);
  const fortranOrder = field(header, 'fortran_order', '(True|False)') === 'True';
  const shapeText = field(header, 'shape', '\\(([^)]*)\\)');
  const shape = shapeText.split(',').map((s) => s.trim()).filter((s) => s !== '').map(Number);
  const order = descr[0];
  const dtype = DESCR[descr.slice(1)];
  if (!['<', '>', '|', '='].includes(order) || dtype === undefined) {
    throw new Error(`.npy dtype ${JSON.stringify(descr)} is not a number type Pco stores (integers of 1-8 bytes, float16/32/64)`);
  }
  const count = shape.reduce((a, b) => a * b, 1);
  const Type = typedArrayFor(dtype);
  const dataStart = start + headerLength;
  const byteLength = count * Type.BYTES_PER_ELEMENT;
  if (dataStart + byteLength > bytes.length) {
    throw new Error(`.npy data holds ${bytes.length - dataStart} bytes, fewer than the ${byteLength} of shape (${shape.join(', ')})`);
  }
  const copy = bytes.slice(dataStart, dataStart + byteLength); // aligned for the typed array
  if (order === '>' && Type.BYTES_PER_ELEMENT > 1) {
    for (let i = 0; i < copy.length; i += Type.BYTES_PER_ELEMENT) copy.subarray(i, i + Type.BYTES_PER_ELEMENT).reverse();
  }
  return { dtype, values: new Type(copy.buffer), shape, fortranOrder };
}

// numdecode's dtype -> NumPy's descr, little-endian ('|' where byte order means nothing).
const DESCR_OF = Object.fromEntries(Object.entries(DESCR).map(([kind, dtype]) => [dtype, `${kind.endsWith('1') ? '|' : '<'}${kind}`]));
const TYPE_DTYPES = [
  [Int8Array, 'i8'], [Uint8Array, 'u8'], [Int16Array, 'i16'], [Uint16Array, 'u16'], [Int32Array, 'i32'], [Uint32Array, 'u32'],
  [Float32Array, 'f32'], [Float64Array, 'f64'], [BigInt64Array, 'i64'], [BigUint64Array, 'u64'],
];

/** numdecode's dtype of a typed array (a Uint16Array is 'u16': pass 'f16' yourself for half bits). */
export function dtypeOfArray(values) {
  return TYPE_DTYPES.find(([Type]) => values instanceof Type)?.[1];
}

/**
 * A .npy file (format version 1.0, as numpy.save writes it) of `values` in `dtype` (f16 as its
 * bits) with `shape`: [header, data] to write one after the other. fortranOrder: the values are
 * column after column (as Parquet columns are).
 */
export function npyPieces(dtype, values, shape, { fortranOrder = false } = {}) {
  const descr = DESCR_OF[dtype];
  if (descr === undefined) throw new TypeError(`no .npy dtype for ${JSON.stringify(dtype)}`);
  const dims = shape.length === 1 ? `${shape[0]},` : shape.join(', ');
  let header = `{'descr': '${descr}', 'fortran_order': ${fortranOrder ? 'True' : 'False'}, 'shape': (${dims}), }`;
  // The data starts at a multiple of 64 bytes: 10 bytes of preamble, the header padded, then LF.
  header += ' '.repeat(63 - ((10 + header.length) % 64)) + '\n';
  const head = new Uint8Array(10 + header.length);
  head.set(MAGIC);
  head[6] = 1; // version 1.0
  head[7] = 0;
  new DataView(head.buffer).setUint16(8, header.length, true);
  for (let i = 0; i < header.length; i++) head[10 + i] = header.charCodeAt(i);
  return [head, new Uint8Array(values.buffer, values.byteOffset, values.byteLength)];
}
