// The page of bench/zarr-browser.mjs: whole-array reads of one array of the big store (served at
// /store/big.zarr/ over loopback HTTP) by every contender, each checked bit for bit against
// zarrita.get's output, then timed in interleaved runs. Returns the times to the Node side.
import * as zarr from 'zarrita';
import { WorkerPool } from '@fideus-labs/worker-pool';
import { getWorker } from '@fideus-labs/fizarrita';
import { init, buildInfo } from 'numdecode';
import { read, registerPcodec } from 'numdecode/zarr';
import { createWorkerPool } from 'numdecode/worker';

const log = (text) => {
  document.getElementById('log').textContent = text;
  console.log(text);
};

await init({ formats: ['pco'] });
registerPcodec(zarr.registry);

const numdecodePools = new Map(); // workers -> numdecode pool, kept across arrays
const fizarritaPools = new Map(); // "shared 2" / "transfer 2" -> fizarrita WorkerPool (one per way, not shared)
const CONTENDER_TIMEOUT_MS = 180_000; // one read: a read that never settles fails instead of hanging the bench

async function numdecodePool(n) {
  if (!numdecodePools.has(n)) numdecodePools.set(n, await createWorkerPool({ size: n, init: { formats: ['pco'] } }));
  return numdecodePools.get(n);
}

function fizarritaPool(key, n) {
  if (!fizarritaPools.has(key)) fizarritaPools.set(key, new WorkerPool(n));
  return fizarritaPools.get(key);
}

function bounded(promise, what) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: not settled after ${CONTENDER_TIMEOUT_MS / 1000} s`)), CONTENDER_TIMEOUT_MS);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

// zarrita.get's own queue starts every chunk's fetch at once: on t2m (1 920 chunks) Chromium refuses
// part of them (net::ERR_INSUFFICIENT_RESOURCES, "TypeError: Failed to fetch"). It gets a queue of
// 64 at a time, numdecode read()'s default over a network (NETWORK_CONCURRENCY in js/zarr/read.js).
const ZARRITA_CONCURRENCY = 64;
function createQueue() {
  const waiting = [];
  const done = [];
  let running = 0;
  const next = () => {
    while (running < ZARRITA_CONCURRENCY && waiting.length > 0) {
      const [fn, resolve, reject] = waiting.shift();
      running++;
      Promise.resolve()
        .then(fn)
        .then(resolve, reject)
        .finally(() => {
          running--;
          next();
        });
    }
  };
  return {
    add(fn) {
      done.push(new Promise((resolve, reject) => waiting.push([fn, resolve, reject])));
      next();
    },
    onIdle: () => Promise.all(done),
  };
}
const zarritaGet = (arr) => zarr.get(arr, null, { createQueue });

// The store's bytes alone: every chunk file (every shard file) of the array fetched through the same
// FetchStore, ZARRITA_CONCURRENCY at a time, nothing decoded: what the loopback HTTP costs each contender at least.
function chunkKeys(meta) {
  const grid = meta.shape.map((n, d) => Math.ceil(n / meta.chunk_grid.configuration.chunk_shape[d]));
  // Zarr v3 key encodings: "default" (c/0/1/2) and "v2" (0.1.2)
  const v2 = meta.chunk_key_encoding?.name === 'v2';
  const separator = meta.chunk_key_encoding?.configuration?.separator ?? (v2 ? '.' : '/');
  const keys = [];
  (function walk(prefix, d) {
    if (d === grid.length) return keys.push(prefix.join(separator));
    for (let i = 0; i < grid[d]; i++) walk([...prefix, i], d + 1);
  })(v2 ? [] : ['c'], 0);
  return keys;
}

async function fetchOnly(store, arr, meta) {
  const keys = chunkKeys(meta);
  let next = 0;
  let bytes = 0;
  const fetcher = async () => {
    while (next < keys.length) {
      const got = await store.get(arr.resolve(keys[next++]).path);
      bytes += got?.byteLength ?? 0;
    }
  };
  await Promise.all(Array.from({ length: ZARRITA_CONCURRENCY }, fetcher));
  return { files: keys.length, bytes };
}

/**
 * The array's files held in the page, for --stores memory: get and getRange hand out a fresh copy
 * each time, as a fetch would, to every contender alike. What is left is each contender's own
 * work: scheduling, decoding (on the main thread or in workers) and placing values.
 */
class MemoryStore {
  #files;
  constructor(files) {
    this.#files = files;
  }
  async get(key) {
    return this.#files.get(key)?.slice();
  }
  async getRange(key, range) {
    const bytes = this.#files.get(key);
    if (bytes === undefined) return undefined;
    return 'suffixLength' in range ? bytes.slice(bytes.length - range.suffixLength) : bytes.slice(range.offset, range.offset + range.length);
  }
}

async function loadIntoMemory(fetchStore, name) {
  const arrPath = `/${name}`;
  const files = new Map();
  const metaKey = `${arrPath}/zarr.json`;
  files.set(metaKey, await fetchStore.get(metaKey));
  const meta = JSON.parse(new TextDecoder().decode(files.get(metaKey)));
  const keys = chunkKeys(meta).map((k) => `${arrPath}/${k}`);
  let next = 0;
  await Promise.all(
    Array.from({ length: ZARRITA_CONCURRENCY }, async () => {
      while (next < keys.length) {
        const key = keys[next++];
        const bytes = await fetchStore.get(key);
        if (bytes !== undefined) files.set(key, bytes);
      }
    }),
  );
  return new MemoryStore(files);
}

// Widest integer view of the bytes (NaNs compare by bits, not by value).
function words(data) {
  const { buffer, byteOffset, byteLength } = data;
  if (byteOffset % 4 === 0 && byteLength % 4 === 0) return new Uint32Array(buffer, byteOffset, byteLength / 4);
  if (byteOffset % 2 === 0 && byteLength % 2 === 0) return new Uint16Array(buffer, byteOffset, byteLength / 2);
  return new Uint8Array(buffer, byteOffset, byteLength);
}

/** Where two outputs first differ, or null when they are the same bytes and shape. */
function difference(want, got) {
  if (got?.data?.constructor !== want.data.constructor) return `output is a ${got?.data?.constructor?.name}, zarrita.get's a ${want.data.constructor.name}`;
  if (JSON.stringify(got.shape) !== JSON.stringify(want.shape)) return `shape [${got.shape}] instead of [${want.shape}]`;
  const a = words(want.data);
  const b = words(got.data);
  if (a.length !== b.length || a.constructor !== b.constructor) return `${got.data.byteLength} bytes instead of ${want.data.byteLength}`;
  let wrong = 0;
  let first = -1;
  for (let i = 0; i < a.length; i++) {
    if (a[i] !== b[i]) {
      if (first < 0) first = i;
      wrong++;
    }
  }
  if (wrong === 0) return null;
  const at = first * a.BYTES_PER_ELEMENT / want.data.BYTES_PER_ELEMENT;
  return `${wrong} of ${a.length} words differ; first at value ${at} (zarrita.get ${want.data[at]}, this ${got.data[at]})`;
}

/**
 * One array, every contender: {values, checks, samples: {name: [ms...]}, errors: {name: message}}.
 * options: {name, runs, workers: number[], workerUrl}
 */
window.benchArray = async ({ name, runs, workers, workerUrl, storeKind = 'http' }) => {
  const fetchStore = new zarr.FetchStore(new URL('/store/big.zarr/', location.href).href);
  const store = storeKind === 'memory' ? await loadIntoMemory(fetchStore, name) : fetchStore;
  const arr = await zarr.open.v3(zarr.root(store).resolve(name), { kind: 'array' });
  const values = arr.shape.reduce((a, b) => a * b, 1);
  const contenders = [['zarrita.get', () => zarritaGet(arr)], ['read', () => read(arr)]];
  for (const n of workers) {
    const pool = await numdecodePool(n);
    contenders.push([`read, pool ${n}`, () => read(arr, { pool })]);
  }
  for (const n of workers) {
    for (const way of ['shared', 'transfer']) {
      const key = `${way} ${n}`;
      const useSharedArrayBuffer = way === 'shared';
      contenders.push([`fizarrita ${n}, ${way}`, () => getWorker(arr, null, { pool: fizarritaPool(key, n), workerUrl, useSharedArrayBuffer }), key]);
    }
  }
  const meta = JSON.parse(new TextDecoder().decode(await store.get(arr.resolve('zarr.json').path)));
  if (!['default', 'v2'].includes(meta.chunk_key_encoding?.name)) throw new Error(`${name}: fetch only knows the default and v2 chunk key encodings`);
  if (storeKind === 'http') contenders.push([`fetch only, ${ZARRITA_CONCURRENCY} at a time`, () => fetchOnly(store, arr, meta)]);
  const samples = Object.fromEntries(contenders.map(([c]) => [c, []]));
  const errors = {};
  const checks = {};

  // Warm-up and check: every contender's output against zarrita.get's, byte for byte.
  log(`${name} (${storeKind}): zarrita.get (reference)`);
  const want = await zarritaGet(arr);
  for (const [c, run, poolKey] of contenders) {
    log(`${name} (${storeKind}): warm-up and check of ${c}`);
    let got;
    try {
      got = await bounded(run(), c);
    } catch (err) {
      errors[c] = `${err?.name ?? 'Error'}: ${err?.message ?? err}`;
      // A failed getWorker may leave its pool with tasks counted as running: the next array gets a new pool.
      if (poolKey) {
        fizarritaPools.get(poolKey)?.terminateWorkers();
        fizarritaPools.delete(poolKey);
      }
      continue;
    }
    if (c.startsWith('fetch only')) continue; // no values to compare
    const diff = difference(want, got);
    checks[c] = diff ?? 'same bytes';
    if (diff) errors[c] = `WRONG OUTPUT: ${diff}`;
    got = null;
  }

  // Interleaved runs, each after a garbage collection (the page runs with --expose-gc).
  const timed = contenders.filter(([c]) => errors[c] === undefined);
  for (let r = 0; r < runs; r++) {
    for (const [c, run] of timed) {
      log(`${name} (${storeKind}): run ${r + 1}/${runs}, ${c}`);
      globalThis.gc?.();
      const t0 = performance.now();
      const got = await bounded(run(), c);
      samples[c].push(performance.now() - t0);
      if (!c.startsWith('fetch only') && got.data.length !== values) throw new Error(`${c}: ${got.data.length} values instead of ${values}`);
    }
  }
  log(`${name} (${storeKind}): done`);
  return { name, storeKind, values, dtype: arr.dtype, chunks: arr.chunks, samples, errors, checks };
};

/** What the Node side prints above the tables. */
window.pageFacts = () => ({
  crossOriginIsolated: globalThis.crossOriginIsolated === true,
  sharedArrayBuffer: typeof SharedArrayBuffer === 'function',
  userAgent: navigator.userAgent,
  hardwareConcurrency: navigator.hardwareConcurrency,
  simd: buildInfo().simd,
  gc: typeof globalThis.gc === 'function',
});

window.closePools = async () => {
  for (const p of numdecodePools.values()) await p.terminate();
  for (const p of fizarritaPools.values()) p.terminateWorkers();
  numdecodePools.clear();
  fizarritaPools.clear();
};

window.pageReady = true;
log('ready');
