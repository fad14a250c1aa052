// Opens a Zarr store (v2 or v3; a group or an array) through zarrita with numdecode's pcodec
// codec, lists its hierarchy, describes its arrays and reads slices in C order. zarrita opens the
// store (open-store.js: in as few round trips as the store allows) and its arrays; numdecode's read
// (js/zarr/read.js) reads the slices. This file decides what to open and counts what was fetched.
//
//   const store = await openZarr('https://host/data.zarr');   // or a local directory (Node), or a zarrita store
//   store.nodes           // [{path, kind: 'group'|'array', description?, attributes?, error?}]
//   const { values, shape, dataType } = await store.read('/t2m', '0,:,:');
import * as zarr from 'zarrita';
import { NumdecodeError, CODES } from '../errors.js';
import * as pco from '../pco.js';
import { ensureFormat } from '../wasm/load.js';
import { read, registerPcodec } from '../zarr.js';
import { countingStore } from './counting-store.js';
import { openStore } from './open-store.js';
import { assertReadable, assertZarritaReadable, describeArray } from './describe.js';
import { float16AsBits, float16BitsStore, registerFloat16Bits } from '../zarr/float16-bits.js';
import { parseSlice, sliceShape, toCOrder, toSelection } from './slice.js';

const MAX_PROBES = 64; // arrays probed by name when the store has no consolidated metadata
const decoder = new TextDecoder();

function joinPath(parent, name) {
  return `${parent === '/' ? '' : parent}/${name}`.replace(/\/+/g, '/');
}

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

async function baseStore(source) {
  if (typeof source === 'string') {
    if (/^https?:\/\//i.test(source) || typeof process === 'undefined') return new zarr.FetchStore(source.replace(/\/+$/, ''));
    const { LocalStore } = await import('../zarr/local-store.js');
    return new LocalStore(source);
  }
  if (source && typeof source.get === 'function') return source;
  throw new TypeError('openZarr: pass a URL, a local directory (Node) or a zarrita store ({get, getRange?})');
}

function asJson(bytes, key) {
  if (!bytes) return null;
  try {
    return JSON.parse(decoder.decode(bytes));
  } catch (err) {
    throw new NumdecodeError(`zarr: ${key} is not valid JSON (${err.message})`, { code: CODES.BAD_DATA, file: key });
  }
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
  return new NumdecodeError(message, { code: unknown ? CODES.UNSUPPORTED : CODES.BAD_DATA, dataset: path, file: where, cause: err });
}

/**
 * @param {string | {get: Function, getRange?: Function}} source URL, local directory (Node) or store
 * @param {{name?: string, hints?: string[], listMetadataKeys?: () => Promise<string[]>,
 *   pool?: {run: Function}, maxRangeBytes?: number}} [options]
 *   hints: array paths to probe when the store has no consolidated metadata (over HTTP nothing
 *   else names them); listMetadataKeys: every metadata key of a local store ("/t2m/zarr.json").
 */
export async function openZarr(source, options = {}) {
  const where = options.name ?? (typeof source === 'string' ? source : 'the store');
  const counted = countingStore(await baseStore(source), { name: where, maxRangeBytes: options.maxRangeBytes });
  const adapter = decodingPool(options.pool);
  registerPcodec(zarr.registry, { pool: adapter });
  const bits = float16AsBits();
  if (bits) registerFloat16Bits(zarr.registry, { pool: adapter });
  let session;
  let rootNode;
  try {
    session = await openStore(counted, { transform: bits ? float16BitsStore : undefined });
    rootNode = await session.open('/');
  } catch (err) {
    const notZarr = err?.name === 'NotFoundError' || err?.name === 'InvalidMetadataError' || err instanceof SyntaxError;
    const chain = [];
    for (let e = err; e instanceof Error && chain.length < 4; e = e.cause) chain.push(e.message);
    throw new NumdecodeError(
      notZarr
        ? `zarr: ${where} is not a Zarr group or array (no readable zarr.json, .zgroup or .zarray): ${chain.join(': ')}`
        : `zarr: cannot read ${where}: ${chain.join(': ')}`,
      // Found but not Zarr (or damaged metadata), or not reached at all.
      { code: notZarr ? CODES.BAD_DATA : CODES.NETWORK, file: where, cause: err },
    );
  }
  const { consolidated, version } = session;
  const maybeConsolidated = session.raw;
  // Raw metadata (as written) comes through the consolidated layer, without float16 rewriting.
  const rawJson = async (key) => asJson(await maybeConsolidated.get(key), key);

  // The store's version decides which documents to ask for: a v3 node has one, a v2 node's three
  // are asked for together.
  async function rawMetadata(path) {
    if (version === 'v3') {
      const v3 = await rawJson(`${joinPath(path, 'zarr.json')}`);
      return v3 ? { meta: v3, attributes: v3.attributes ?? {} } : null;
    }
    const [zarray, zgroup, zattrs] = await Promise.all(['.zarray', '.zgroup', '.zattrs'].map((k) => rawJson(joinPath(path, k))));
    if (!zarray && !zgroup) return null;
    return { meta: zarray ?? zgroup, attributes: zattrs ?? {}, kind: zarray ? 'array' : 'group' };
  }

  const nodes = new Map();
  const loading = new Map(); // path -> the promise of its node, while its metadata is on its way
  // Nodes are added together (one round trip for many), each path once.
  function addNode(path, kindHint) {
    if (nodes.has(path)) return Promise.resolve(nodes.get(path));
    if (!loading.has(path)) loading.set(path, loadNode(path, kindHint).finally(() => loading.delete(path)));
    return loading.get(path);
  }
  async function loadNode(path, kindHint) {
    let node;
    try {
      const raw = await rawMetadata(path);
      if (!raw) return null;
      const kind = raw.kind ?? raw.meta.node_type ?? kindHint;
      node = { path, kind, zarrFormat: raw.meta.zarr_format };
      if (kind === 'array') node.description = describeArray(path, raw.meta, raw.attributes, zarr.registry);
      else node.attributes = raw.attributes;
    } catch (err) {
      node = { path, kind: kindHint ?? 'unknown', error: err.message };
    }
    nodes.set(path, node);
    return node;
  }

  await addNode('/', rootNode.kind);
  if (rootNode.kind === 'group') {
    let candidates = [];
    if (consolidated && typeof maybeConsolidated.contents === 'function') {
      candidates = maybeConsolidated.contents().map((c) => ({ path: c.path, kind: c.kind }));
    } else if (options.listMetadataKeys) {
      for (const key of await options.listMetadataKeys()) {
        const m = /^(.*?)\/?(zarr\.json|\.zarray|\.zgroup)$/.exec(key);
        if (m) candidates.push({ path: m[1] === '' ? '/' : m[1].startsWith('/') ? m[1] : `/${m[1]}`, kind: m[2] === '.zarray' ? 'array' : undefined });
      }
    }
    for (const hint of options.hints ?? []) candidates.push({ path: joinPath('/', hint) });
    await Promise.all(candidates.filter((c) => c.path !== '/').map((c) => addNode(c.path, c.kind)));
    // No list: the arrays' dimension names (xarray's coordinates) name sibling arrays.
    if (!consolidated && !options.listMetadataKeys) {
      const siblings = new Set();
      for (const node of [...nodes.values()]) {
        for (const dim of node.description?.dimensionNames ?? []) {
          if (typeof dim !== 'string' || !dim) continue;
          const sibling = joinPath(node.path.replace(/\/[^/]*$/, '') || '/', dim);
          if (!nodes.has(sibling) && siblings.size < MAX_PROBES) siblings.add(sibling);
        }
      }
      await Promise.all([...siblings].map((sibling) => addNode(sibling, 'array')));
    }
  }

  const arrays = new Map();
  async function openArray(path) {
    const p = joinPath('/', path);
    if (arrays.has(p)) return arrays.get(p);
    const node = await addNode(p, 'array');
    if (!node) throw new NumdecodeError(`zarr: ${where} has no array ${p}`, { code: CODES.BAD_DATA, dataset: p, file: where });
    if (node.error) throw new NumdecodeError(`zarr: array ${p} in ${where}: ${node.error}`, { code: CODES.BAD_DATA, dataset: p, file: where });
    if (node.kind !== 'array') throw new NumdecodeError(`zarr: ${p} in ${where} is a ${node.kind}, not an array`, { code: CODES.BAD_DATA, dataset: p, file: where });
    assertReadable(node.description, where);
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
    rootKind: rootNode.kind,
    zarrFormat: nodes.get('/')?.zarrFormat ?? null,
    get nodes() {
      return [...nodes.values()].sort((a, b) => a.path.localeCompare(b.path));
    },
    /** Adds a node by path (a group without consolidated metadata cannot list its children). */
    addNode: (path) => addNode(joinPath('/', path)),
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
        throw new NumdecodeError(`zarr: the slice of ${description.path} holds ${count} values, more than the limit of ${maxValues}`, {
          code: CODES.OUTPUT_LIMIT, dataset: description.path, file: where,
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
        throw new NumdecodeError(`zarr: array ${description.path} is not compressed with pcodec`, { code: CODES.UNSUPPORTED, dataset: description.path });
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
