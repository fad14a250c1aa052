// A zarrita.js codec for Zarr arrays written with numcodecs' pcodec codec (zarr-python).
//
//   import * as zarr from 'zarrita';
//   import { registerPcodec } from 'numdecode/zarr';
//   registerPcodec(zarr.registry);
//   const arr = await zarr.open(await httpStore(url), { kind: 'array' });   // or zarrita's FetchStore
//   const { nodes } = await list(url);   // the store's groups and arrays (metadata, codecs)
//   const { data } = await read(await openArray(url, '/t2m'));   // numdecode's read, with list()'s guards
//   using view = await readView(arr);   // the same in wasm memory, nothing copied out (view.data)
//
// Names it answers to: Zarr v3 metadata calls the codec "numcodecs.pcodec" (numcodecs.zarr3.PCodec)
// and some newer writers "pcodec"; Zarr v2 metadata has compressor {"id": "pcodec", ...}, which
// zarrita looks up as "numcodecs.pcodec".
//
// Chunk layout: numcodecs.PCodec.encode is pcodec's standalone.simple_compress(array, config), so
// each Zarr chunk is one standalone Pco file (magic "pco!", header, Pco chunks) holding the chunk's
// values in C order (zarrita undoes a v2 order "F" with its own transpose codec). The codec's JSON
// configuration only steers the encoder (level, mode_spec, delta_spec, paging_spec,
// delta_encoding_order, equal_pages_up_to; see zarr/pcodec-config.js): decoding reads everything it
// needs from the file.
import { CODES, PcoError } from './errors.js';
import { typedArrayFor } from './dtypes.js';
import { ensureFormat } from './wasm/load.js';
import { decodeView, encode } from './pco.js';
import { PCODEC_CODEC_NAMES } from './zarr/codec-names.js';
import { pcodecEncodeOptions } from './zarr/pcodec-config.js';

// A store for local folders in Node that reads chunk files without libuv's thread pool.
export { LocalStore } from './zarr/local-store.js';

/**
 * A zarrita store over an http(s) URL that reads through numdecode's I/O layer: retries, a timeout
 * per request, each file's version pinned, Range answers checked (a server that ignores Range is
 * read once whole). list(), openArray() and the CLI use one for a URL; pass it to zarrita's open()
 * yourself. Its code loads on first use.
 * @param {string | URL} url the store's root
 * @param {object} [options] the I/O options (docs/io.md): retries, timeout, headers, fetch, ...
 */
export async function httpStore(url, options) {
  const { HttpStore } = await import('./zarr/http-store.js');
  return new HttpStore(url, options);
}

/** Errors about a Zarr store: `file` the store or a key in it, `array` the array's path. */
export { CODES, NumdecodeError, ZarrError } from './errors.js';

// zarrita is an optional peer dependency, loaded with the list module on first use.
async function listModule(what) {
  try {
    return await import('./zarr/list.js');
  } catch (err) {
    if (err?.code === 'ERR_MODULE_NOT_FOUND') throw new Error(`numdecode/zarr ${what} needs the zarrita package: npm install zarrita`, { cause: err });
    throw err;
  }
}

/**
 * Lists a Zarr store (v2 or v3, a group or an array): every group and array with its attributes,
 * and for arrays shape, chunks, shards, data type, fill value, order and codecs, with who decodes
 * each (js/zarr/list.js). Needs zarrita, which it loads on first use.
 * @param {string | {get: Function, getRange?: Function}} source a URL, a local directory (Node) or a zarrita store
 * @param {{name?: string, hints?: string[], listMetadataKeys?: () => (string[] | Promise<string[]>), signal?: AbortSignal}} [options]
 */
export async function list(source, options) {
  return (await listModule('list()')).list(source, options);
}

/**
 * Opens one array of a store with zarrita, for read(), with list()'s guards (a ZarrError when the
 * array is not there, is a group, or uses a codec nothing here decodes). Where the engine has no
 * Float16Array a float16 array opens as its bits (uint16), which read() reads.
 * @param {string | {get: Function, getRange?: Function}} source a URL, a local directory (Node) or a zarrita store
 * @param {string} path the array's path in the store ("/t2m")
 * @param {{name?: string, signal?: AbortSignal}} [options]
 */
export async function openArray(source, path, options) {
  return (await listModule('openArray()')).openArray(source, path, options);
}

/**
 * Reads an array opened with zarrita, or a selection of it, as zarrita's get returns it
 * ({data, shape, stride}), decoded by numdecode (js/zarr/read.js). Loaded on first use, so that a
 * page that only registers the codec does not download the read.
 * @param {any} array @param {object} [options]
 */
export async function read(array, options) {
  const { read: readArray } = await import('./zarr/read.js');
  return readArray(array, options);
}

/**
 * The same as a zero-copy view in the Pco module's memory: every chunk decodes straight into its
 * place there and nothing is copied out ({data, shape, stride, dtype, length, byteLength,
 * release()}; js/zarr/read.js). Pcodec chunks only, on the calling thread.
 * @param {any} array @param {object} [options]
 */
export async function readView(array, options) {
  const { readView: readArrayView } = await import('./zarr/read.js');
  return readArrayView(array, options);
}

/** The codec names registerPcodec() registers. */
export { PCODEC_CODEC_NAMES };

/** Configuration fields numcodecs writes; all of them only matter to the encoder. */
export const PCODEC_ENCODER_FIELDS = Object.freeze([
  'level',
  'mode_spec',
  'delta_spec',
  'paging_spec',
  'delta_encoding_order',
  'equal_pages_up_to',
]);

// Zarr data_type -> the dtype name numdecode uses. Pco has no bool or complex types.
const ZARR_TO_DTYPE = Object.freeze({
  int8: 'i8',
  uint8: 'u8',
  int16: 'i16',
  uint16: 'u16',
  float16: 'f16',
  int32: 'i32',
  uint32: 'u32',
  float32: 'f32',
  int64: 'i64',
  uint64: 'u64',
  float64: 'f64',
});

function cStrides(shape) {
  const strides = new Array(shape.length);
  let step = 1;
  for (let i = shape.length - 1; i >= 0; i--) {
    strides[i] = step;
    step *= shape[i];
  }
  return strides;
}

function codecError(message, details) {
  return new PcoError(`numcodecs.pcodec: ${message}`, details);
}

// f16 values arrive as their bits; zarrita's float16 arrays are Float16Array where the engine has it.
function asFloat16(bits) {
  const Float16 = globalThis.Float16Array;
  return Float16 ? new Float16(bits.buffer, bits.byteOffset, bits.length) : bits;
}

/**
 * The array -> bytes codec zarrita instantiates for each array (fromConfig): decodes chunks, and
 * encodes them for zarr.set.
 */
export class PcodecCodec {
  /** zarrita's codec kind: it replaces the "bytes" codec (bytes in, typed array chunk out). */
  kind = 'array_to_bytes';
  static kind = 'array_to_bytes';

  #dtype;
  #dataType;
  #shape;
  #strides;
  #size;
  #maxOutputBytes;
  #options;

  /**
   * @param {object|null|undefined} configuration the codec's JSON configuration (encoder settings, kept as is)
   * @param {{dataType?: string, data_type?: string, shape: number[], codecs?: {name: string, configuration?: any}[]}} meta
   *   zarrita's chunk metadata (dataType in zarrita 0.7, data_type in 0.6)
   * @param {{init?: import('./wasm/load.js').InitOptions, pool?: {run: Function}}} [options]
   */
  constructor(configuration, meta, options = {}) {
    if (configuration != null && (typeof configuration !== 'object' || Array.isArray(configuration))) {
      throw codecError(`configuration must be a JSON object, got ${JSON.stringify(configuration)}`);
    }
    // zarrita 0.7 names it dataType; 0.6 (and fizarrita's workers, built on it) data_type.
    const dataType = meta?.dataType ?? meta?.data_type;
    const dtype = ZARR_TO_DTYPE[dataType];
    if (dtype === undefined) {
      throw codecError(`data type ${JSON.stringify(dataType)} is not one Pco stores (${Object.keys(ZARR_TO_DTYPE).join(', ')})`);
    }
    // Zarr v2 arrays with a big-endian dtype (">f8") get an explicit big-endian "bytes" codec from
    // zarrita. Pco files hold little-endian numbers only, so such metadata cannot describe pcodec chunks.
    const bigEndian = (meta.codecs ?? []).some((c) => c?.name === 'bytes' && c.configuration?.endian === 'big');
    if (bigEndian) throw codecError('big-endian data types are not supported (Pco stores little-endian numbers)', { code: CODES.UNSUPPORTED });
    /** The configuration as written in the metadata; decoding does not use it. */
    this.configuration = Object.freeze({ ...(configuration ?? {}) });
    this.#dtype = dtype;
    this.#dataType = dataType;
    this.#shape = [...meta.shape];
    this.#strides = cStrides(this.#shape);
    this.#size = this.#shape.reduce((a, b) => a * b, 1);
    // A chunk decodes to exactly its shape's values: refuse to decode more (a few bytes of Pco can
    // claim gigabytes of constant values).
    this.#maxOutputBytes = this.#size * typedArrayFor(dtype).BYTES_PER_ELEMENT;
    this.#options = options ?? {};
  }

  static fromConfig(configuration, meta) {
    return new PcodecCodec(configuration, meta);
  }

  /**
   * Encodes one chunk ({data, shape, stride} from zarrita, C order) as a standalone Pco file, as
   * numcodecs.PCodec does, with the codec's configuration (level, mode_spec, delta_spec,
   * paging_spec, delta_encoding_order, equal_pages_up_to). The encoder module loads on first use.
   * @returns {Promise<Uint8Array>}
   */
  async encode(chunk) {
    const options = pcodecEncodeOptions(this.configuration, this.#dtype);
    const { data, shape, stride } = chunk ?? {};
    const chunkShape = shape ?? this.#shape;
    const length = chunkShape.reduce((a, b) => a * b, 1);
    if (!ArrayBuffer.isView(data)) throw codecError(`encode needs the chunk's values in a typed array, got ${data?.constructor?.name ?? typeof data}`);
    if (data.length !== length) throw codecError(`encode got ${data.length} values for a chunk of shape [${chunkShape.join(', ')}] (${length})`);
    if (stride !== undefined && shape !== undefined && stride.some((s, i) => s !== cStrides(shape)[i])) {
      throw codecError(`encode needs the chunk in C order (strides ${cStrides(shape).join(', ')}), got strides ${stride.join(', ')}`);
    }
    // f16 chunks may come as a Float16Array: Pco takes their bits.
    const values = this.#dtype === 'f16' ? new Uint16Array(data.buffer, data.byteOffset, data.length) : data;
    if (this.#options.pool) return this.#options.pool.run({ format: 'pco', op: 'encode', args: [values, options] });
    await ensureFormat('pco-encode', this.#options.init);
    return encode(values, options);
  }

  /**
   * Decodes one chunk (a standalone Pco file) into {data, shape, stride} for zarrita.
   * @param {Uint8Array} bytes
   */
  async decode(bytes) {
    const data = this.#options.pool ? await this.#decodeInPool(bytes) : await this.#decodeHere(bytes);
    return {
      data: this.#dtype === 'f16' ? asFloat16(data) : data,
      shape: this.#shape,
      stride: this.#strides,
    };
  }

  #checkDtype(dtype) {
    // A file without chunks and without a declared dtype (dtype null) is a valid empty chunk.
    if (dtype !== null && dtype !== this.#dtype) {
      throw codecError(`the chunk holds ${dtype} values but the array's data type is ${this.#dataType} (${this.#dtype})`);
    }
  }

  #tooMany(err) {
    if (err?.code === CODES.OUTPUT_LIMIT) {
      return codecError(
        `the chunk holds more than the ${this.#size} values its shape [${this.#shape.join(', ')}] allows (${err.message})`,
        { cause: err },
      );
    }
    return err;
  }

  #checkLength(length) {
    if (length !== this.#size) {
      throw codecError(
        `the chunk holds ${length} values but its shape [${this.#shape.join(', ')}] needs ${this.#size}`,
      );
    }
  }

  async #decodeHere(bytes) {
    await ensureFormat('pco', this.#options.init); // only the Pco module, and no other format's JS
    // One copy out of wasm memory, as with pco.decode, but the view also tells the dtype
    // (pco.decode's Uint16Array could be u16 or f16).
    let view;
    try {
      view = decodeView(bytes, { maxOutputBytes: this.#maxOutputBytes });
    } catch (err) {
      throw this.#tooMany(err);
    }
    try {
      this.#checkDtype(view.dtype);
      const values = view.values;
      this.#checkLength(values.length);
      // new + set, not slice(): V8's slice() on a view of wasm memory is slow.
      const copy = new values.constructor(values.length);
      copy.set(values);
      return copy;
    } finally {
      view.release();
    }
  }

  async #decodeInPool(bytes) {
    // The pool copies just these bytes (they may be a view into a shard or a cache) and moves the copy.
    const limit = { maxOutputBytes: this.#maxOutputBytes };
    const chunks = await this.#options.pool
      .run({ format: 'pco', op: 'decodeChunks', args: [bytes, limit] })
      .catch((err) => Promise.reject(this.#tooMany(err)));
    let length = 0;
    for (const c of chunks) {
      this.#checkDtype(c.dtype);
      length += c.values.length;
    }
    this.#checkLength(length);
    if (chunks.length === 1) return chunks[0].values;
    const out = new (typedArrayFor(this.#dtype))(length);
    let at = 0;
    for (const c of chunks) {
      out.set(c.values, at);
      at += c.values.length;
    }
    return out;
  }
}

/**
 * A zarrita codec registry entry ({kind, fromConfig}) with options bound.
 * @param {{init?: import('./wasm/load.js').InitOptions, pool?: {run: Function}}} [options]
 *   init: options for numdecode's init(), which loads the Pco module (only) on first decode;
 *   pool: a worker pool from numdecode/worker to decode chunks off the main thread.
 */
export function pcodecCodecEntry(options = {}) {
  return Object.freeze({
    kind: 'array_to_bytes',
    fromConfig: (configuration, meta) => new PcodecCodec(configuration, meta, options),
  });
}

/**
 * Registers the codec in zarrita's registry (pass `zarr.registry` from `import * as zarr from
 * 'zarrita'`) under every name in PCODEC_CODEC_NAMES. Returns the registry.
 * @param {Map<string, () => Promise<any>>} registry
 * @param {{init?: import('./wasm/load.js').InitOptions, pool?: {run: Function}}} [options]
 */
export function registerPcodec(registry, options = {}) {
  if (registry === null || typeof registry !== 'object' || typeof registry.set !== 'function') {
    throw new TypeError("registerPcodec: pass zarrita's codec registry (import * as zarr from 'zarrita'; zarr.registry)");
  }
  const entry = pcodecCodecEntry(options);
  for (const name of PCODEC_CODEC_NAMES) registry.set(name, () => Promise.resolve(entry));
  return registry;
}
