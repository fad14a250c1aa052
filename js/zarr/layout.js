// What a read must know about a zarrita array beyond what zarrita shows (shape, chunks, dtype, fill
// value): how its chunks are keyed, laid out (C, F or another axis order) and encoded, and how its
// shards index their chunks. zarrita keeps these in private fields, so they come from the array's
// metadata document as written (zarr.json, or .zarray for v2), read through the array's own store:
// from memory for consolidated stores and stores opened with openStore (js/zarr/open.js).
import { CODES, ZarrError } from '../errors.js';
import { FLOAT16_BITS_CODEC, FLOAT16_BITS_V2_ID, PCODEC_CODEC_NAMES } from './codec-names.js';
import { MAX_BOX_AXES } from './chunk-decode.js';

/** The symbol under which a store made by openStore answers metadata documents it already holds. */
export const KNOWN_METADATA = Symbol.for('numdecode.zarr.knownMetadata');

// Zarr data type -> Pco dtype, output class and element size.
const NUMERIC = {
  int8: ['i8', Int8Array],
  uint8: ['u8', Uint8Array],
  int16: ['i16', Int16Array],
  uint16: ['u16', Uint16Array],
  float16: ['f16', null], // Float16Array where the engine has it, else the bits as Uint16Array
  int32: ['i32', Int32Array],
  uint32: ['u32', Uint32Array],
  float32: ['f32', Float32Array],
  int64: ['i64', BigInt64Array],
  uint64: ['u64', BigUint64Array],
  float64: ['f64', Float64Array],
};

const V2_DTYPE = /^([<>|])([iuf])(\d)$/;
const versionOf = new WeakMap(); // store -> 'v3' | 'v2', the metadata that answered there last
const decoder = new TextDecoder();

function layoutError(array, message, code = CODES.UNSUPPORTED) {
  return new ZarrError(`zarr read: array ${array.path}: ${message}`, { code, array: array.path, dataset: array.path });
}

function parseJson(array, key, bytes) {
  try {
    return JSON.parse(decoder.decode(bytes));
  } catch (err) {
    throw new ZarrError(`zarr read: ${key} is not valid JSON (${err.message})`, { code: CODES.BAD_DATA, file: key, array: array.path, dataset: array.path, cause: err });
  }
}

// Per zarrita array object, its metadata document once read: a viewer that reads one slice after
// another of the same array (each a read() call) asks the store for its chunks only, not for its
// zarr.json again (a round trip each over HTTP). zarrita's array holds that metadata fixed anyway.
const documents = new WeakMap();

// The array's metadata document. Asks for zarr.json and .zarray together the first time a store is
// seen (one round trip whichever it holds), then the version that answered there first.
async function metadataDocument(array, signal) {
  const store = array.store;
  const known = store?.[KNOWN_METADATA]?.(array.path) ?? documents.get(array);
  if (known) return known;
  const doc = await fetchMetadataDocument(array, store, signal);
  documents.set(array, doc);
  return doc;
}

async function fetchMetadataDocument(array, store, signal) {
  const keys = { v3: array.resolve('zarr.json').path, v2: array.resolve('.zarray').path };
  const read = async (version) => {
    const bytes = await store.get(keys[version], { signal });
    return bytes ? { version, doc: parseJson(array, keys[version], bytes) } : null;
  };
  const first = versionOf.get(store);
  let found;
  if (first) {
    found = (await read(first)) ?? (await read(first === 'v3' ? 'v2' : 'v3'));
  } else {
    const [v3, v2] = await Promise.all([read('v3'), read('v2')]);
    found = v3 ?? v2;
  }
  if (!found) throw layoutError(array, `no zarr.json or .zarray at ${array.path}`, CODES.NOT_FOUND);
  versionOf.set(store, found.version);
  return found.doc;
}

function transposeOrder(array, configuration, rank) {
  const order = configuration?.order ?? 'C';
  if (order === 'C') return [...Array(rank).keys()];
  if (order === 'F') return [...Array(rank).keys()].reverse();
  const permutation = Array.isArray(order) && order.length === rank && [...order].sort((a, b) => a - b).every((axis, i) => axis === i);
  if (!permutation) throw layoutError(array, `its transpose order ${JSON.stringify(order)} is not a permutation of its ${rank} axes`, CODES.BAD_DATA);
  return order;
}

const counts = (a, rank, min) => Array.isArray(a) && a.length === rank && a.every((n) => Number.isSafeInteger(n) && n >= min);

// The shape and chunk grid a read plans from, checked: a chunk shape of 0, -1 or 1.5, or of the
// wrong rank, planned nonsense (reads of all zeros, or of the wrong chunks) without an error.
function checkGeometry(array, doc) {
  const bad = (what) => layoutError(array, what, CODES.BAD_DATA);
  const shape = doc.shape;
  if (!counts(shape, shape?.length, 0)) throw bad(`its shape ${JSON.stringify(shape)} is not a list of non-negative integers`);
  const rank = shape.length;
  let grid = doc.chunks;
  if (doc.zarr_format !== 2) {
    if (doc.chunk_grid?.name !== 'regular') throw layoutError(array, `its chunk grid ${JSON.stringify(doc.chunk_grid?.name)} is not regular; read it with zarrita's get`);
    grid = doc.chunk_grid.configuration?.chunk_shape;
  }
  if (!counts(grid, rank, 1)) throw bad(`its chunk shape ${JSON.stringify(grid)} is not one positive integer per dimension of its shape ${JSON.stringify(shape)}`);
  const sharding = doc.zarr_format !== 2 && (doc.codecs ?? []).find((c) => c?.name === 'sharding_indexed');
  if (sharding && !counts(sharding.configuration?.chunk_shape, rank, 1)) {
    throw bad(`its shards' inner chunk shape ${JSON.stringify(sharding.configuration?.chunk_shape)} is not one positive integer per dimension`);
  }
  // zarrita's view of the array, which the read plans from, must be the document's
  if (!counts(array.shape, rank, 0) || !counts(array.chunks, rank, 1)) throw bad(`zarrita's shape ${JSON.stringify(array.shape)} and chunks ${JSON.stringify(array.chunks)} disagree with its metadata`);
}

// A chunk codec list read as: optional transpose, then pcodec alone (numdecode decodes it), or
// anything else (zarrita's pipeline decodes it).
function classifyChain(array, codecs, rank) {
  let order = [...Array(rank).keys()];
  let rest = codecs;
  if (rest[0]?.name === 'transpose') {
    order = transposeOrder(array, rest[0].configuration, rank);
    rest = rest.slice(1);
  }
  const pco = rest.length === 1 && (PCODEC_CODEC_NAMES.includes(rest[0]?.name) || rest[0]?.name === FLOAT16_BITS_CODEC);
  return { order, pco, float16Bits: pco && rest[0].name === FLOAT16_BITS_CODEC };
}

function chunkKeyEncoder(array, name, separator) {
  // Another separator (empty, a number) names no stored chunk: every chunk "missing", the whole
  // read the fill value, without an error.
  if (separator !== undefined && separator !== '/' && separator !== '.') {
    throw layoutError(array, `its chunk key separator ${JSON.stringify(separator)} is neither "/" nor "."`, CODES.BAD_DATA);
  }
  if (name === 'default') return (coords) => ['c', ...coords].join(separator ?? '/');
  if (name === 'v2') return (coords) => coords.join(separator ?? '.') || '0';
  return null;
}

// Shard indexes numdecode reads itself: little-endian u64 pairs, with or without a CRC-32C after them.
function indexTrailer(array, indexCodecs) {
  const names = (indexCodecs ?? [{ name: 'bytes' }]).map((c) => c?.name);
  const bytes = indexCodecs?.[0]?.configuration?.endian ?? 'little';
  if (names[0] === 'bytes' && bytes === 'little' && (names.length === 1 || (names.length === 2 && names[1] === 'crc32c'))) {
    return names.length === 2 ? 4 : 0;
  }
  throw layoutError(array, `its shard index codecs ${JSON.stringify(names)} are not little-endian bytes (with or without crc32c)`);
}

function v3Layout(array, doc) {
  const rank = doc.shape.length;
  const cke = doc.chunk_key_encoding ?? { name: 'default' };
  const key = chunkKeyEncoder(array, cke.name, cke.configuration?.separator);
  if (!key) throw layoutError(array, `unknown chunk key encoding ${JSON.stringify(cke.name)}`);
  const codecs = doc.codecs ?? [];
  const sharding = codecs.find((c) => c?.name === 'sharding_indexed');
  if (!sharding) return { key, ...classifyChain(array, codecs, rank), shard: null };
  if (codecs.length !== 1) throw layoutError(array, 'codecs around sharding_indexed are not supported');
  const config = sharding.configuration ?? {};
  const shardShape = doc.chunk_grid.configuration.chunk_shape;
  const chunksPerShard = shardShape.map((n, d) => n / config.chunk_shape[d]);
  if (!chunksPerShard.every(Number.isInteger)) throw layoutError(array, `its shard shape ${JSON.stringify(shardShape)} is not a whole number of chunks`, CODES.BAD_DATA);
  const location = config.index_location ?? 'end';
  if (location !== 'end' && location !== 'start') throw layoutError(array, `unknown shard index_location ${JSON.stringify(location)}`);
  const count = chunksPerShard.reduce((a, b) => a * b, 1);
  return {
    key,
    ...classifyChain(array, config.codecs ?? [], rank),
    shard: { chunksPerShard, indexLocation: location, indexBytes: 16 * count + indexTrailer(array, config.index_codecs), count },
  };
}

function v2Layout(array, doc) {
  const rank = doc.shape.length;
  const key = chunkKeyEncoder(array, 'v2', doc.dimension_separator ?? '.');
  const order = doc.order === 'F' ? [...Array(rank).keys()].reverse() : [...Array(rank).keys()];
  const bigEndian = V2_DTYPE.exec(String(doc.dtype))?.[1] === '>' && !String(doc.dtype).endsWith('1');
  const id = doc.compressor?.id;
  const pco = !bigEndian && !(doc.filters?.length > 0) && (id === 'pcodec' || id === FLOAT16_BITS_V2_ID);
  return { key, order, pco, float16Bits: pco && id === FLOAT16_BITS_V2_ID, shard: null };
}

/**
 * The layout of a zarrita array for reading:
 *   path, shape, chunkShape (inner chunks when sharded), dataType (zarrita's), Output (typed array class),
 *   pcoDtype (what a Pco chunk holds), fill (the value for chunks not stored), order (axis order of the
 *   stored chunk, outermost first), chunkKey(coords) (the store key of a chunk or shard),
 *   pco (true when numdecode decodes the chunks itself), shard (null or {chunksPerShard, indexLocation,
 *   indexBytes, count}).
 * @param {import('zarrita').Array<any, any>} array
 * @param {{signal?: AbortSignal}} [options]
 */
export async function arrayLayout(array, { signal } = {}) {
  const dataType = array.dtype;
  if (!Object.hasOwn(NUMERIC, dataType)) {
    throw layoutError(array, `its data type ${dataType} is not numeric; read it with zarrita's get`);
  }
  const doc = await metadataDocument(array, signal);
  checkGeometry(array, doc);
  const parts = doc.zarr_format === 2 ? v2Layout(array, doc) : v3Layout(array, doc);
  const [pcoDtype, Type] = NUMERIC[dataType];
  const Output = Type ?? globalThis.Float16Array ?? Uint16Array;
  // A Pco chunk decodes in the module's 32-bit memory, its box given as 32-bit numbers: one of 4 GiB
  // or more would be cut to its low 32 bits there (a chunk shape of 1e12 checked as 3567587328).
  const chunkBytes = array.chunks.reduce((a, b) => a * b, Output.BYTES_PER_ELEMENT);
  if (parts.pco && chunkBytes > 0xffffffff) {
    throw layoutError(array, `its chunks of shape [${array.chunks.join(', ')}] are ${chunkBytes} bytes each, more than the 4 GiB a wasm decoder can hold`, CODES.OUTPUT_LIMIT);
  }
  if (parts.pco && array.shape.length > MAX_BOX_AXES) {
    throw layoutError(array, `it has ${array.shape.length} dimensions; numdecode decodes pcodec chunks of arrays of up to ${MAX_BOX_AXES}`);
  }
  const prefix = array.path.endsWith('/') ? array.path : `${array.path}/`;
  const fill = array.fillValue ?? (Output === BigInt64Array || Output === BigUint64Array ? 0n : 0);
  return {
    path: array.path,
    shape: [...array.shape],
    chunkShape: [...array.chunks],
    dataType,
    Output,
    bytesPerElement: Output.BYTES_PER_ELEMENT,
    // The explorer's float16-as-bits arrays say uint16 but hold f16 Pco chunks.
    pcoDtype: parts.float16Bits ? 'f16' : pcoDtype,
    fill,
    order: parts.order,
    pco: parts.pco,
    shard: parts.shard,
    // The array's path and the key joined as zarrita's Location.resolve would, without its URL objects.
    chunkKey: (coords) => `${prefix}${parts.key(coords)}`,
  };
}
