// The worker side of numdecode/worker: runs in a browser module Worker or a Node worker_threads
// Worker. Loads numdecode once, then runs jobs {id, format, op, args}: format names a namespace of
// numdecode (pco, alp, bpcells, io), op one of its functions. Typed arrays in the result are
// transferred back (no copy).
import { serializeError } from '../errors.js';
import { FORMATS, buildInfo, ensureFormat, loadFormats } from '../wasm/load.js';

// The namespaces a job may name, each imported on its first job: a worker that only decodes Pco
// (a Zarr viewer's pool) loads no other format's JS.
const NAMESPACES = {
  pco: () => import('../pco.js'),
  alp: () => import('../alp.js'),
  bpcells: () => import('../bpcells/index.js'),
  io: () => import('../io/index.js'),
  zarr: () => import('../zarr/pool-job.js'), // a Zarr read's chunk batches (js/zarr/pool-decode.js)
  parquet: () => import('../parquet/pool-job.js'), // a Parquet read's column chunks (js/parquet/pool-read.js)
  pcoMany: () => import('../pco/pool-job.js'), // pool.decodePcoMany's files, many to a message
};

// A browser worker's global is a WorkerGlobalScope; Node's worker_threads has none.
const port =
  typeof WorkerGlobalScope === 'function' && self instanceof WorkerGlobalScope
    ? self
    : (await import(/* webpackIgnore: true */ 'node:worker_threads')).parentPort;

function listen(handler) {
  if (typeof port.on === 'function') port.on('message', handler);
  else port.addEventListener('message', (event) => handler(event.data));
}

// Class, code, location and cause travel with the message; the pool rebuilds the same error.
const errorData = serializeError;

// The ArrayBuffers behind typed arrays in a result (top level, arrays and plain objects, a few
// levels deep), each once. Buffers of wasm memory or SharedArrayBuffers cannot be transferred.
function transferables(value, found = new Set(), depth = 0) {
  if (value === null || typeof value !== 'object' || depth > 5) return found;
  if (ArrayBuffer.isView(value)) {
    if (value.buffer instanceof ArrayBuffer) found.add(value.buffer);
  } else if (value instanceof ArrayBuffer) {
    found.add(value);
  } else if (Array.isArray(value)) {
    for (const v of value) transferables(v, found, depth + 1);
  } else if (Object.getPrototypeOf(value) === Object.prototype) {
    for (const v of Object.values(value)) transferables(v, found, depth + 1);
  }
  return found;
}

// Each namespace's module once it has loaded: a dynamic import() per job cost as much as decoding
// a small file.
const loaded = new Map();

async function lookup(format, op) {
  if (!Object.hasOwn(NAMESPACES, format)) {
    throw new Error(`numdecode worker: unknown format ${JSON.stringify(format)} (one of ${Object.keys(NAMESPACES).join(', ')})`);
  }
  const api = loaded.get(format) ?? loaded.set(format, await NAMESPACES[format]()).get(format);
  const fn = Object.hasOwn(api, op) ? api[op] : undefined;
  if (typeof fn !== 'function') {
    const ops = Object.keys(api).filter((k) => typeof api[k] === 'function');
    throw new Error(`numdecode worker: ${format} has no operation ${JSON.stringify(op)} (one of ${ops.join(', ')})`);
  }
  return fn;
}

async function runOne({ format, op, args }) {
  const fn = await lookup(format, op);
  // A format the pool's init options left out loads on its first job, in the build chosen at init.
  if (FORMATS.includes(format)) await ensureFormat(format);
  return detachViews(await fn(...(args ?? [])));
}

function closeResource(value) {
  try {
    if (typeof value?.close === 'function') value.close();
    else if (typeof value?.release === 'function') value.release();
  } catch {
    // already closed
  }
}

// A zero-copy view (pco/alp decodeView) lives in this worker's wasm memory, which the caller
// cannot see: send its values as a plain array (one copy, then transferred) and release it here,
// so that no view outlives its job.
function detachViews(result) {
  if (result === null || typeof result !== 'object' || typeof result.release !== 'function' || !('values' in result)) return result;
  try {
    const { values } = result;
    return { dtype: result.dtype, values: values.slice() };
  } finally {
    result.release();
  }
}

// A message is one job {id, format, op, args} or a batch {id, batch: [job, ...]} (many small
// jobs, one message each way). A batch answers {id, results: [{result} | {error}, ...]}.
async function run(message) {
  const { id, format, op } = message;
  let reply;
  try {
    if (Array.isArray(message.batch)) {
      const results = [];
      for (const job of message.batch) {
        try {
          results.push({ result: await runOne(job) });
        } catch (err) {
          results.push({ error: errorData(err) });
        }
      }
      reply = { id, results };
    } else {
      reply = { id, result: await runOne(message) };
    }
  } catch (err) {
    port.postMessage({ id, error: errorData(err) });
    return;
  }
  try {
    port.postMessage(reply, [...transferables(reply.results ?? reply.result)]);
  } catch (err) {
    // Whatever the result holds in this worker's memory (an ALP page reader, say) is freed here.
    for (const r of reply.results ?? [{ result: reply.result }]) closeResource(r.result);
    const what = message.batch ? 'a batch' : `${format}.${op}`;
    port.postMessage({
      id,
      error: { name: 'DataCloneError', message: `numdecode worker: the result of ${what} cannot be sent back (${err.message})` },
    });
  }
}

// Jobs run one after another in the order they came (the pool posts the next before this one
// answers, so that it waits here rather than a round trip away).
let previous = Promise.resolve();

listen(async (message) => {
  if (message?.type === 'init') {
    try {
      await loadFormats(message.options);
      port.postMessage({ type: 'ready', buildInfo: buildInfo() });
    } catch (err) {
      port.postMessage({ type: 'ready', error: errorData(err) });
    }
    return;
  }
  const turn = previous.then(() => run(message));
  previous = turn.catch(() => {});
  await turn;
});
