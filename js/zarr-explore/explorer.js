// Opens a Zarr store (v2 or v3; a group or an array) through zarrita with numdecode's pcodec
// codec for browsing (the CLI's `numdecode zarr`, the demo): the hierarchy is numdecode/zarr's
// list() (js/zarr/list.js: in as few round trips as the store allows), zarrita opens the arrays and
// numdecode's read (js/zarr/read.js) reads the slices. This file counts what was fetched, reads
// float16 as bits where the engine has no Float16Array, and reads slices in C order.
//
//   const store = await openZarr('https://host/data.zarr');   // or a local directory (Node), or a zarrita store
//   store.nodes           // [{path, kind: 'group'|'array', description?, attributes?, error?}]
//                         // description: list()'s array node
//   const { values, shape, dataType } = await store.read('/t2m', '0,:,:');
import * as zarr from 'zarrita';
import { CODES, NumdecodeError, ZarrError } from '../errors.js';
import * as pco from '../pco.js';
import { ensureFormat } from '../wasm/load.js';
import { read, registerPcodec } from '../zarr.js';
import { assertZarritaReadable } from '../zarr/describe.js';
import { checkArrayNode, joinPath, openHierarchy } from '../zarr/list.js';
import { countingStore } from './counting-store.js';
import { float16AsBits, float16BitsStore, registerFloat16Bits } from '../zarr/float16-bits.js';
import { parseSlice, sliceShape, toCOrder, toSelection } from './slice.js';

// Keeps the last pcodec chunk bytes a read decoded when asked to (chunkBytes()).
function decodingPool(pool) {
  const adapter = {
    capture: null,
    async run(job) {
      adapter.capture?.push(job.args[0].slice());
      if (pool) return pool.run(job);
      await ensureFormat('pco'); // the Pco module only
      return pco[job.op](...job.args);
    },
  };
  return adapter;
}

/** Wraps zarrita's errors so they name the array and the store (and the chunks, when few were read). */
function wrapError(err, path, where, keys = []) {
  if (err instanceof NumdecodeError) return err;
  const chain = [];
  for (let e = err; e instanceof Error && chain.length < 4; e = e.cause) chain.push(e.message);
  const unknown = /Unknown codec: (\S+)/.exec(chain.join(' '));
  const message = unknown
    ? `zarr: array ${path} in ${where}: its chunks use the codec ${unknown[1]}, which neither numdecode nor zarrita decodes`
    : `zarr: array ${path} in ${where}: ${chain.join(': ')}${keys.length && keys.length <= 4 ? ` (while reading ${[...new Set(keys)].join(', ')})` : ''}`;
  return new ZarrError(message, { code: unknown ? CODES.UNSUPPORTED : CODES.BAD_DATA, array: path, dataset: path, file: where, cause: err });
}

/**
 * @param {string | {get: Function, getRange?: Function}} source URL, local directory (Node) or store
 * @param {{name?: string, hints?: string[], listMetadataKeys?: () => Promise<string[]>,
 *   pool?: {run: Function}, maxRangeBytes?: number}} [options] and, for a URL, the I/O options
 *   (timeout, maxReadBytes, retries, headers, ...: js/zarr/http-store.js)
 *   hints: array paths to probe when the store has no consolidated metadata (over HTTP nothing
 *   else names them); listMetadataKeys: every metadata key of the store ("/t2m/zarr.json"); a local
 *   directory is walked without it.
 */
export async function openZarr(source, options = {}) {
  const where = options.name ?? (typeof source === 'string' ? source : 'the store');
  const adapter = decodingPool(options.pool);
  registerPcodec(zarr.registry, { pool: adapter });
  const bits = float16AsBits();
  if (bits) registerFloat16Bits(zarr.registry, { pool: adapter });
  let counted;
  const hierarchy = await openHierarchy(source, {
    ...options, // for a URL's store, the I/O options among them (timeout, maxReadBytes, ...)
    name: where,
    hints: options.hints,
    listMetadataKeys: options.listMetadataKeys,
    wrap: (store) => (counted = countingStore(store, { name: where, maxRangeBytes: options.maxRangeBytes })),
    transform: bits ? float16BitsStore : undefined,
  });
  const { session, consolidated, nodes, addNode } = hierarchy;

  const arrays = new Map();
  async function openArray(path) {
    const p = joinPath('/', path);
    if (arrays.has(p)) return arrays.get(p);
    checkArrayNode(await addNode(p, 'array'), p, where);
    const node = nodes.get(p);
    let array;
    try {
      array = await session.open(p, 'array');
    } catch (err) {
      throw wrapError(err, p, where);
    }
    const opened = { array, description: node.description, float16Bits: bits && node.description.dataType === 'float16' };
    arrays.set(p, opened);
    return opened;
  }

  return {
    name: where,
    stats: counted.stats,
    consolidated,
    rootKind: hierarchy.rootKind,
    zarrFormat: hierarchy.zarrFormat,
    get nodes() {
      return [...nodes.values()].sort((a, b) => a.path.localeCompare(b.path));
    },
    /** Adds a node by path (a group without consolidated metadata cannot list its children). */
    addNode: (path) => addNode(path),
    openArray,
    /**
     * Reads a slice ("0,:,10:20" or parseSlice() output) in C order.
     * @returns {Promise<{values, shape: number[], dataType: string, float16Bits: boolean, parsed}>}
     *   float16 values are a Float16Array, or their bits (Uint16Array) when float16Bits
     */
    async read(path, slice, { maxValues = 2 ** 28, signal, onProgress } = {}) {
      const { array, description, float16Bits } = await openArray(path);
      const parsed = Array.isArray(slice) ? slice : parseSlice(slice, array.shape);
      const shape = sliceShape(parsed);
      const count = shape.reduce((a, b) => a * b, 1);
      if (count > maxValues) {
        throw new ZarrError(`zarr: the slice of ${description.path} holds ${count} values, more than the limit of ${maxValues}`, {
          code: CODES.OUTPUT_LIMIT, array: description.path, dataset: description.path, file: where,
        });
      }
      let got;
      const requestsBefore = counted.stats.chunkRequests;
      try {
        // numdecode's read: chunks fetched together, decoded in the pool when there is one.
        got = await read(array, { selection: toSelection(zarr, parsed), signal, onProgress, pool: options.pool });
      } catch (err) {
        const fetched = counted.stats.chunkRequests - requestsBefore;
        throw wrapError(err, description.path, where, fetched <= counted.stats.keys.length ? counted.stats.keys.slice(counted.stats.keys.length - fetched) : []);
      }
      return { values: toCOrder(got), shape, dataType: description.dataType, float16Bits, parsed };
    },
    /**
     * The stored bytes of one pcodec chunk (a standalone Pco file), by chunk coordinates (inner
     * chunks for a sharded array), or null when the chunk is not stored (it reads as the fill value).
     */
    async chunkBytes(path, coords) {
      const { array, description } = await openArray(path);
      const c = array.chunks;
      if (!Array.isArray(coords) || coords.length !== c.length || coords.some((x, d) => !(Number.isInteger(x) && x >= 0 && x * c[d] < array.shape[d]))) {
        throw new RangeError(`chunk ${JSON.stringify(coords)} is not a chunk of ${description.path} (grid ${array.shape.map((n, d) => Math.ceil(n / c[d])).join(' x ')})`);
      }
      assertZarritaReadable(description, where); // the chunk's bytes are caught on their way through zarrita's get
      if (!description.codecs.some((k) => k.decoder === 'numdecode')) {
        throw new ZarrError(`zarr: array ${description.path} is not compressed with pcodec`, { code: CODES.UNSUPPORTED, array: description.path, dataset: description.path });
      }
      const parsed = coords.map((x, d) => ({ start: x * c[d], stop: Math.min(array.shape[d], (x + 1) * c[d]), step: 1 }));
      adapter.capture = [];
      try {
        await zarr.get(array, toSelection(zarr, parsed));
        return adapter.capture[0] ?? null;
      } catch (err) {
        throw wrapError(err, description.path, where);
      } finally {
        adapter.capture = null;
      }
    },
  };
}
