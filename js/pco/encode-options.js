// The Pco encoder's options, checked and turned into what the encoder module takes. Modes and
// delta encodings are named as pco.inspect() reports them ({ name: 'IntMult', base: 7 }), or with
// `kind` in camelCase ({ kind: 'intMult', base: 7 }), or as a plain string ('auto', 'classic',
// 'dict', 'noOp'), so that a file's inspected choices can be passed back as they are.
import { requireAttached } from '../bytes.js';
import { DTYPES, isDtype, typedArrayFor } from '../dtypes.js';

export const DEFAULT_LEVEL = 8;
export const MAX_LEVEL = 12;
export const DEFAULT_PAGE_SIZE = 1 << 18; // pcodec's default: chunks (standalone) or pages (wrapped) up to 2^18 numbers
export const MAX_CHUNK_SIZE = 1 << 24; // a standalone chunk's count field holds n - 1 in 24 bits
const MAX_CONSECUTIVE_ORDER = 7;
const MAX_CONV1_ORDER = 32;
const MANTISSA_BITS = { f16: 10, f32: 23, f64: 52 };
const FLOAT_DTYPES = new Set(['f16', 'f32', 'f64']);
const WIDTH_BITS = { u8: 8, i8: 8, u16: 16, i16: 16, f16: 16, u32: 32, i32: 32, f32: 32, u64: 64, i64: 64, f64: 64 };

// Codes of the encoder module (src/bindings/pco_encode_bindings.cpp).
export const MODE_CODES = Object.freeze({ auto: 0, classic: 1, intMult: 2, floatMult: 3, floatQuant: 4, dict: 5 });
export const DELTA_CODES = Object.freeze({ auto: 0, noOp: 1, consecutive: 2, lookback: 3, conv1: 4 });
// inspect() says 'None' for no delta encoding; pcodec's option is NoOp.
const DELTA_ALIASES = { none: 'noOp' };

// Fields of inspect()'s objects that the encoder chooses itself: accepted, so that an inspected
// mode or delta can be passed back, and not used.
const CHOSEN_MODE_FIELDS = ['dictLength'];
const CHOSEN_DELTA_FIELDS = ['windowNLog', 'stateNLog', 'quantization', 'bias', 'weights'];

// The dtype of each typed-array class (Uint16Array is u16; f16 is asked for with options.dtype).
const typedArrays = new Map(DTYPES.filter((d) => d !== 'f16').map((d) => [typedArrayFor(d), d]));

// 'IntMult' (inspect) or 'intMult' -> 'intMult'.
const camel = (name) => name.charAt(0).toLowerCase() + name.slice(1);

function kindOf(what, spec, codes, aliases = {}) {
  const raw = typeof spec === 'string' ? spec : (spec.kind ?? spec.name);
  if (typeof raw !== 'string') {
    throw new TypeError(`${what} must be 'auto' or an object with a kind (one of ${Object.keys(codes).join(', ')}), got ${JSON.stringify(spec)}`);
  }
  const kind = aliases[camel(raw)] ?? camel(raw);
  if (!Object.hasOwn(codes, kind)) throw new TypeError(`${what}: unknown kind ${JSON.stringify(raw)} (one of ${Object.keys(codes).join(', ')})`);
  return kind;
}

function checkFields(what, spec, allowed) {
  if (typeof spec !== 'object') return;
  for (const key of Object.keys(spec)) {
    if (!allowed.includes(key)) throw new TypeError(`${what}: unknown field ${JSON.stringify(key)} (one of ${allowed.join(', ')})`);
  }
}

function integerIn(what, value, min, max) {
  if (typeof value !== 'number' || !Number.isInteger(value)) throw new TypeError(`${what} must be an integer, got ${describe(value)}`);
  if (value < min || value > max) throw new RangeError(`${what} must be from ${min} to ${max}, got ${value}`);
  return value;
}

const describe = (value) => (typeof value === 'bigint' ? `${value}n` : typeof value === 'string' ? JSON.stringify(value) : String(value));

/** The numbers to encode: { dtype, bytes } (little-endian, f16 as its bits). */
export function encodeInput(what, values, dtypeOption) {
  if (dtypeOption !== undefined && !isDtype(dtypeOption)) {
    throw new TypeError(`${what}: options.dtype must be one of ${DTYPES.join(', ')}, got ${describe(dtypeOption)}`);
  }
  if (Array.isArray(values)) {
    if (dtypeOption === undefined) throw new TypeError(`${what}: an Array of numbers needs options.dtype (one of ${DTYPES.join(', ')})`);
    const Type = typedArrayFor(dtypeOption);
    const wide = WIDTH_BITS[dtypeOption] === 64 && !FLOAT_DTYPES.has(dtypeOption);
    checkPlainValues(what, values, dtypeOption);
    const typed = Type.from(values, wide ? (x) => BigInt(x) : undefined);
    return { dtype: dtypeOption, bytes: new Uint8Array(typed.buffer) };
  }
  const given = ArrayBuffer.isView(values) && !(values instanceof DataView) ? typedArrays.get(values.constructor) ?? typedArrayOf(values) : undefined;
  if (given === undefined) {
    const hint = values instanceof Uint8ClampedArray ? ' (a Uint8ClampedArray: pass its bytes as a Uint8Array, new Uint8Array(values.buffer))' : '';
    throw new TypeError(`${what}: values must be a typed array of a Pco dtype (or an Array with options.dtype), got ${values?.constructor?.name ?? describe(values)}${hint}`);
  }
  requireAttached(`${what}: values`, values);
  // Only f16 reinterprets: its values arrive as their bits, in a Uint16Array.
  let dtype = given;
  if (dtypeOption !== undefined && dtypeOption !== given) {
    if (!(dtypeOption === 'f16' && given === 'u16')) {
      const hint = dtypeOption === 'f16' ? '; f16 values come as their bits in a Uint16Array' : '';
      throw new TypeError(`${what}: options.dtype is ${dtypeOption} but values are a ${values.constructor.name} (${given})${hint}`);
    }
    dtype = 'f16';
  }
  return { dtype, bytes: new Uint8Array(values.buffer, values.byteOffset, values.byteLength) };
}

// An Array's values must be what the dtype holds: a typed array's constructor would wrap 256 to 0
// in a u8, cut 1.5 to 1 in an i32 and turn "x" into NaN, writing values the caller never had.
// Integers within range (64-bit ones as safe integers or bigints), numbers for f32 / f64, and an
// f16's bits (0 to 65535), as in a Uint16Array.
function checkPlainValues(what, values, dtype) {
  const float = dtype === 'f32' || dtype === 'f64';
  const bits = WIDTH_BITS[dtype];
  const signed = dtype.startsWith('i');
  const lo = signed ? -(2n ** BigInt(bits - 1)) : 0n;
  const hi = signed ? 2n ** BigInt(bits - 1) - 1n : 2n ** BigInt(bits) - 1n;
  const [loN, hiN] = [Number(lo), Number(hi)];
  for (let i = 0; i < values.length; i++) {
    const x = values[i];
    if (float) {
      if (typeof x !== 'number') throw new TypeError(`${what}: values[${i}] is ${describe(x)}, not a number (${dtype})`);
      continue;
    }
    const isInteger = typeof x === 'bigint' ? bits === 64 : Number.isInteger(x) && (bits < 64 || Number.isSafeInteger(x));
    if (!isInteger) {
      const want = dtype === 'f16' ? 'the bits of an f16 (an integer from 0 to 65535, as in a Uint16Array)' : bits === 64 ? 'a safe integer or a bigint' : 'an integer';
      throw new TypeError(`${what}: values[${i}] is ${describe(x)}, not ${want}`);
    }
    if (typeof x === 'bigint' ? x < lo || x > hi : x < loN || x > hiN) {
      throw new RangeError(`${what}: values[${i}] = ${describe(x)} does not fit ${dtype} (from ${lo} to ${hi})`);
    }
  }
}

// A Node Buffer (and other subclasses) counts as its typed-array class.
function typedArrayOf(values) {
  for (const [Type, dtype] of typedArrays) if (values instanceof Type) return dtype;
  return undefined;
}

function modeArgs(what, mode, dtype) {
  if (mode === undefined || mode === 'auto') return { mode: MODE_CODES.auto, baseLo: 0, baseHi: 0, floatBase: 0, k: 0 };
  if (mode === null || (typeof mode !== 'string' && typeof mode !== 'object')) {
    throw new TypeError(`${what} must be 'auto' or an object such as { kind: 'intMult', base: 7 }, got ${describe(mode)}`);
  }
  const kind = kindOf(what, mode, MODE_CODES);
  const isFloat = FLOAT_DTYPES.has(dtype);
  const args = { mode: MODE_CODES[kind], baseLo: 0, baseHi: 0, floatBase: 0, k: 0 };
  if (kind === 'intMult') {
    checkFields(what, mode, ['kind', 'name', 'base']);
    if (isFloat) throw new TypeError(`${what}: intMult applies to integer dtypes, not ${dtype} (floats take floatMult)`);
    const bits = WIDTH_BITS[dtype];
    const base = typeof mode.base === 'bigint' ? mode.base : Number.isInteger(mode.base) ? BigInt(mode.base) : undefined;
    if (base === undefined) throw new TypeError(`${what}: intMult needs an integer base, got ${describe(mode.base)}`);
    const max = (1n << BigInt(bits)) - 1n;
    if (base < 1n || base > max) throw new RangeError(`${what}: intMult base must be from 1 to ${max} for ${dtype}, got ${base}`);
    args.baseLo = Number(base & 0xffffffffn);
    args.baseHi = Number(base >> 32n);
  } else if (kind === 'floatMult') {
    checkFields(what, mode, ['kind', 'name', 'base']);
    if (!isFloat) throw new TypeError(`${what}: floatMult applies to float dtypes, not ${dtype} (integers take intMult)`);
    if (typeof mode.base !== 'number') throw new TypeError(`${what}: floatMult needs a number base, got ${describe(mode.base)}`);
    const inType = dtype === 'f32' ? Math.fround(mode.base) : dtype === 'f16' ? roundToHalf(mode.base) : mode.base;
    if (!Number.isFinite(inType) || inType === 0) {
      throw new RangeError(`${what}: floatMult base must be finite and nonzero as ${dtype}, got ${mode.base}`);
    }
    args.floatBase = mode.base;
  } else if (kind === 'floatQuant') {
    checkFields(what, mode, ['kind', 'name', 'k']);
    if (!isFloat) throw new TypeError(`${what}: floatQuant applies to float dtypes, not ${dtype}`);
    args.k = integerIn(`${what}: floatQuant k`, mode.k, 1, MANTISSA_BITS[dtype]);
  } else {
    checkFields(what, mode, ['kind', 'name', ...CHOSEN_MODE_FIELDS]);
  }
  return args;
}

// Close enough to the encoder's own rounding to tell an f16 overflow or underflow to 0.
function roundToHalf(x) {
  const a = Math.abs(x);
  if (a >= 65520) return Infinity; // rounds past the largest half, 65504
  if (a <= 2 ** -25) return 0; // at most half the smallest subnormal (2^-25 itself ties to even: 0)
  return x;
}

function deltaArgs(what, delta, dtype, modeCode) {
  if (delta === undefined || delta === 'auto') return { delta: DELTA_CODES.auto, order: 0 };
  if (delta === null || (typeof delta !== 'string' && typeof delta !== 'object')) {
    throw new TypeError(`${what} must be 'auto' or an object such as { kind: 'consecutive', order: 1 }, got ${describe(delta)}`);
  }
  const kind = kindOf(what, delta, DELTA_CODES, DELTA_ALIASES);
  if (typeof delta === 'object' && delta.secondaryUsesDelta !== undefined && typeof delta.secondaryUsesDelta !== 'boolean') {
    throw new TypeError(`${what}: secondaryUsesDelta must be true or false, got ${describe(delta.secondaryUsesDelta)}`);
  }
  if (typeof delta === 'object' && delta.secondaryUsesDelta === true) {
    throw new RangeError(`${what}: secondaryUsesDelta is not something this encoder writes (pcodec's does not either)`);
  }
  const common = ['kind', 'name', 'secondaryUsesDelta', ...CHOSEN_DELTA_FIELDS];
  let order = 0;
  if (kind === 'consecutive' || kind === 'conv1') {
    checkFields(what, delta, [...common, 'order']);
    const max = kind === 'consecutive' ? MAX_CONSECUTIVE_ORDER : MAX_CONV1_ORDER;
    if (typeof delta !== 'object' || delta.order === undefined) throw new TypeError(`${what}: ${kind} needs an order (1 to ${max})`);
    order = integerIn(`${what}: ${kind} order`, delta.order, 1, max);
    // Conv1 predicts in integers twice the latent's width: none is wide enough for 64-bit latents.
    if (kind === 'conv1' && WIDTH_BITS[dtype] === 64 && modeCode !== MODE_CODES.dict) {
      throw new RangeError(`${what}: conv1 is not defined for 64-bit dtypes (${dtype})`);
    }
  } else {
    checkFields(what, delta, common);
  }
  return { delta: DELTA_CODES[kind], order };
}

// Sizes of chunks (standalone) or pages (wrapped): at most `size` each, as equal as possible, or
// exactly `sizes` (as a Uint32Array for the module; none when sizes is not given).
function pagingArgs(what, sizeName, sizesName, size, sizes, n, max) {
  if (size !== undefined && sizes !== undefined) throw new TypeError(`${what}: pass ${sizeName} or ${sizesName}, not both`);
  if (sizes !== undefined) {
    if (!Array.isArray(sizes) && !(sizes instanceof Uint32Array)) throw new TypeError(`${what}: ${sizesName} must be an array of integers`);
    let sum = 0;
    for (const s of sizes) sum += integerIn(`${what}: each of ${sizesName}`, s, 1, max);
    if (sum !== n) throw new RangeError(`${what}: ${sizesName} sum to ${sum}, not the ${n} values given`);
    return { maxPageN: max, pageSizes: Uint32Array.from(sizes) };
  }
  return { maxPageN: size === undefined ? DEFAULT_PAGE_SIZE : integerIn(`${what}: ${sizeName}`, size, 1, max), pageSizes: null };
}

const STANDALONE_OPTIONS = ['level', 'mode', 'delta', 'dtype', 'chunkSize', 'chunkSizes'];
const WRAPPED_OPTIONS = ['level', 'mode', 'delta', 'dtype', 'pageSize', 'pageSizes'];

/**
 * Checks values and options for encode (standalone: chunks) or encodeWrapped (one chunk of pages)
 * and returns { dtype, bytes, n, args } where args are the module's positional options.
 */
export function encodeRequest(what, values, options, wrapped) {
  if (options !== undefined && (options === null || typeof options !== 'object')) {
    throw new TypeError(`${what}: options must be an object, got ${describe(options)}`);
  }
  const o = options ?? {};
  checkFields(`${what}: options`, o, wrapped ? WRAPPED_OPTIONS : STANDALONE_OPTIONS);
  const { dtype, bytes } = encodeInput(what, values, o.dtype);
  const n = bytes.length / (WIDTH_BITS[dtype] / 8);
  const level = o.level === undefined ? DEFAULT_LEVEL : integerIn(`${what}: options.level`, o.level, 0, MAX_LEVEL);
  const mode = modeArgs(`${what}: options.mode`, o.mode, dtype);
  const delta = deltaArgs(`${what}: options.delta`, o.delta, dtype, mode.mode);
  const paging = wrapped
    ? pagingArgs(what, 'pageSize', 'pageSizes', o.pageSize, o.pageSizes, n, 0xffffffff)
    : pagingArgs(what, 'chunkSize', 'chunkSizes', o.chunkSize, o.chunkSizes, n, MAX_CHUNK_SIZE);
  if (wrapped && n === 0) throw new RangeError(`${what}: a chunk needs at least one value`);
  if (wrapped && n > MAX_CHUNK_SIZE) throw new RangeError(`${what}: a chunk holds at most ${MAX_CHUNK_SIZE} values, got ${n}`);
  return { dtype, bytes, n, args: { level, ...mode, ...delta, ...paging } };
}
