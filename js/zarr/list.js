// A Zarr store's hierarchy: every group and array with its metadata and codecs (describe.js), read
// in as few round trips as the store allows (open-store.js: v3 and v2 root documents asked for
// together, the consolidated metadata used when the store has it). Where no consolidated metadata
// names the children, a local directory is walked, and otherwise the caller's hints and the arrays'
// dimension names (xarray's coordinates) are probed. list() is numdecode/zarr's; openHierarchy()
// is also what the store browser (js/zarr-explore/explorer.js: the CLI and the demo) builds on.
//
//   const { nodes } = await list('https://host/data.zarr');   // or a local directory (Node), or a zarrita store
//   for (const n of nodes) if (n.kind === 'array') console.log(n.path, n.dtype, n.shape, n.chunks);
import * as zarr from 'zarrita';
import { CODES, NumdecodeError, ZarrError, abortError } from '../errors.js';
import { assertReadable, describeArray } from './describe.js';
import { float16AsBits, float16BitsStore } from './float16-store.js';
import { openStore } from './open-store.js';
import { ioOptionsOf } from '../io/options.js';

const MAX_PROBES = 64; // arrays probed by dimension name when the store cannot be listed
const decoder = new TextDecoder();

export function joinPath(parent, name) {
  return `${parent === '/' ? '' : parent}/${name}`.replace(/\/+/g, '/');
}

const isUrl = (s) => /^https?:\/\//i.test(s);

/**
 * The zarrita store for a source, and how to list it when it has no consolidated metadata.
 * @param {string | {get: Function, getRange?: Function}} source URL, local directory (Node) or store
 * @param {string} where the source's name for messages
 * @returns {Promise<{store: object, localRoot: string | null}>}
 */
export async function resolveStore(source, where, io = {}) {
  if (typeof URL !== 'undefined' && source instanceof URL) source = source.href;
  if (typeof source === 'string') {
    if (isUrl(source) || typeof process === 'undefined') {
      // Through numdecode's I/O layer: retries, timeouts, Range checked (http-store.js). A relative
      // address in a page is the page's.
      const { HttpStore } = await import('./http-store.js');
      const url = isUrl(source) ? source : new URL(source, globalThis.location?.href).href;
      return { store: new HttpStore(url, io), localRoot: null };
    }
    const [{ LocalStore }, { localKind }] = await Promise.all([import('./local-store.js'), import('./local-keys.js')]);
    const kind = localKind(source);
    if (kind === null) throw new ZarrError(`zarr: not found: ${where}`, { code: CODES.NOT_FOUND, file: where });
    if (kind !== 'directory') throw new ZarrError(`zarr: ${where} is not a directory (a Zarr store is a directory or a URL)`, { code: CODES.BAD_DATA, file: where });
    return { store: new LocalStore(source), localRoot: source };
  }
  if (source && typeof source.get === 'function') {
    // numdecode's LocalStore (Node only: a browser does not load it) is walked like its directory.
    if (typeof globalThis.process?.getBuiltinModule !== 'function') return { store: source, localRoot: null };
    const { LocalStore } = await import('./local-store.js');
    return { store: source, localRoot: source instanceof LocalStore ? source.root : null };
  }
  throw new TypeError('zarr list: pass a URL, a local directory (Node) or a zarrita store ({get, getRange?})');
}

// The I/O layer's options among a caller's (timeout, retries, headers, fetch, ...) for a URL's
// store; the call's own signal and name stay the call's.
function storeOptions(options) {
  const { signal, name, ...io } = ioOptionsOf(options ?? {});
  return io;
}

// A failed request's messages, the HTTP status when zarrita's FetchStore names one.
function causeChain(err) {
  const chain = [];
  for (let e = err; e instanceof Error && chain.length < 4; e = e.cause) chain.push(e.message);
  const status = /\bstatus (\d{3})\b/.exec(chain.join(' '));
  return { text: chain.join(': '), status: status ? Number(status[1]) : undefined };
}

// A store's failure to answer (after the I/O layer's retries) as a ZarrError naming the store and,
// when one was asked for, the node: the I/O layer's code kept (ERR_NETWORK, ERR_CHANGED, ...),
// ERR_NETWORK for a store's bare error; at the store's root a 404 or 410 its message names is
// ERR_NOT_FOUND (a URL with no store there).
function unreadable(err, where, path = null) {
  const { text, status } = causeChain(err);
  const missingRoot = path === null && (status === 404 || status === 410);
  const code = missingRoot ? CODES.NOT_FOUND : err instanceof NumdecodeError ? err.code : CODES.NETWORK;
  const node = path === null ? {} : { array: path, dataset: path };
  return new ZarrError(`zarr: cannot read ${path === null ? where : `${path} in ${where}`}: ${text}`, { code, file: where, ...node, status: err?.status ?? status, cause: err });
}

function asJson(bytes, key, where) {
  if (!bytes) return null;
  try {
    return JSON.parse(decoder.decode(bytes));
  } catch (err) {
    throw new ZarrError(`zarr: ${key} in ${where} is not valid JSON (${err.message})`, { code: CODES.BAD_DATA, file: key, cause: err });
  }
}

/**
 * Opens a store (openStore) and reads its root's metadata: what list() and openArray() start from.
 * @param {string | {get: Function, getRange?: Function}} source
 * @param {{name?: string, signal?: AbortSignal, wrap?: (store: object) => object, transform?: (store: object) => object}} [options]
 *   wrap: a wrapper around the store as resolved (the explorer's counting store); transform: see openStore
 * @returns {Promise<{where: string, localRoot: string | null, session: object, root: object,
 *   rawMetadata: (path: string) => Promise<{meta: object, attributes: object, kind?: string} | null>}>}
 */
export async function openSession(source, options = {}) {
  const where = options.name ?? (typeof source === 'string' ? source : 'the store');
  const { store: resolved, localRoot } = await resolveStore(source, where, storeOptions(options));
  const base = options.wrap ? options.wrap(resolved) : resolved;
  const signal = options.signal;
  // Whatever a store threw once the caller aborted, the call was aborted; else a read failed.
  const failed = (err) => {
    if (signal?.aborted) return abortError(signal, `zarr: reading ${where}`, ZarrError);
    if (err instanceof ZarrError || err?.code === CODES.ABORTED) return err;
    return unreadable(err, where);
  };
  if (signal?.aborted) throw failed();
  let session;
  try {
    session = await openStore(base, { signal: options.signal, transform: options.transform });
  } catch (err) {
    throw failed(err);
  }
  const { version } = session;
  const raw = session.raw; // the metadata as written, through the consolidated layer
  const rawJson = async (key) => asJson(await raw.get(key, { signal: options.signal }), key, where);

  // The store's version decides which documents to ask for: a v3 node has one, a v2 node's three
  // are asked for together.
  async function rawMetadata(path) {
    if (version === 'v3') {
      const v3 = await rawJson(joinPath(path, 'zarr.json'));
      return v3 ? { meta: v3, attributes: v3.attributes ?? {}, kind: v3.node_type } : null;
    }
    const [zarray, zgroup, zattrs] = await Promise.all(['.zarray', '.zgroup', '.zattrs'].map((k) => rawJson(joinPath(path, k))));
    if (!zarray && !zgroup) return null;
    return { meta: zarray ?? zgroup, attributes: zattrs ?? {}, kind: zarray ? 'array' : 'group' };
  }

  let root;
  try {
    root = await rawMetadata('/');
  } catch (err) {
    throw failed(err);
  }
  if (!root || (root.kind !== 'group' && root.kind !== 'array')) {
    // A local directory is there and is not Zarr; a URL that answers none of the documents may as
    // well not be there (the two look the same over HTTP).
    throw new ZarrError(`zarr: ${where} is not a Zarr group or array (no readable zarr.json, .zgroup or .zarray${root ? `; node_type ${JSON.stringify(root.kind)}` : ''})`, {
      code: root || localRoot !== null ? CODES.BAD_DATA : CODES.NOT_FOUND, file: where,
    });
  }

  return { where, localRoot, session, root, rawMetadata };
}

/**
 * Opens a store and reads its hierarchy (the nodes the store names or the probes find).
 * @param {string | {get: Function, getRange?: Function}} source
 * @param {{name?: string, hints?: string[], listMetadataKeys?: () => (string[] | Promise<string[]>),
 *   signal?: AbortSignal, wrap?: (store: object) => object, transform?: (store: object) => object}} [options]
 */
export async function openHierarchy(source, options = {}) {
  const { where, localRoot, session, root, rawMetadata } = await openSession(source, options);
  const { consolidated } = session;
  const raw = session.raw;
  let listMetadataKeys = options.listMetadataKeys;
  if (!listMetadataKeys && localRoot !== null) {
    const { metadataKeys } = await import('./local-keys.js');
    listMetadataKeys = () => metadataKeys(localRoot);
  }

  const nodes = new Map(); // path -> {path, kind, zarrFormat, description?, attributes?, error?}
  const errors = new Map(); // path -> the ZarrError its metadata met
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
      const found = path === '/' ? root : await rawMetadata(path);
      if (!found) return null;
      const kind = found.kind ?? kindHint;
      node = { path, kind, zarrFormat: found.meta.zarr_format };
      if (kind === 'array') node.description = describeArray(path, found.meta, found.attributes, zarr.registry);
      else node.attributes = found.attributes;
    } catch (err) {
      if (options.signal?.aborted) throw err;
      const { text, status } = causeChain(err);
      const error = err instanceof ZarrError ? err : new ZarrError(`zarr: ${path} in ${where}: ${text}`, { code: CODES.NETWORK, file: where, status, cause: err });
      if (kindHint === 'array' && error.array === undefined) error.array = path;
      node = { path, kind: kindHint ?? 'unknown', error: error.message };
      errors.set(path, error);
    }
    nodes.set(path, node);
    return node;
  }

  await addNode('/', root.kind);
  if (root.kind === 'group') {
    let candidates = [];
    if (consolidated && typeof raw.contents === 'function') {
      try {
        candidates = raw.contents().map((c) => ({ path: c.path, kind: c.kind }));
      } catch (err) {
        // (zarrita reads each entry as it lists them: null or a string there is a TypeError)
        throw new ZarrError(`zarr: ${where}: its consolidated metadata is damaged (${err?.message ?? err})`, { code: CODES.BAD_DATA, file: where, cause: err });
      }
    } else if (listMetadataKeys) {
      for (const key of await listMetadataKeys()) {
        const m = /^(.*?)\/?(zarr\.json|\.zarray|\.zgroup)$/.exec(key);
        if (m) candidates.push({ path: m[1] === '' ? '/' : m[1].startsWith('/') ? m[1] : `/${m[1]}`, kind: m[2] === '.zarray' ? 'array' : undefined });
      }
    }
    for (const hint of options.hints ?? []) candidates.push({ path: joinPath('/', hint) });
    await Promise.all(candidates.filter((c) => c.path !== '/').map((c) => addNode(c.path, c.kind)));
    // No list: the arrays' dimension names (xarray's coordinates) name sibling arrays.
    if (!consolidated && !listMetadataKeys) {
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

  return {
    name: where,
    session,
    consolidated,
    /** The hierarchy is all there (consolidated metadata, or a store whose keys were listed). */
    complete: root.kind === 'array' || consolidated || Boolean(listMetadataKeys),
    rootKind: root.kind,
    zarrFormat: root.meta.zarr_format,
    nodes,
    errors,
    addNode: (path, kindHint) => addNode(joinPath('/', path), kindHint),
  };
}

/** The sorted nodes of a hierarchy (openHierarchy), in list()'s form, and the errors met. */
export function listing(hierarchy) {
  const nodes = [];
  const errors = [];
  for (const node of [...hierarchy.nodes.values()].sort((a, b) => a.path.localeCompare(b.path))) {
    if (node.error) errors.push(hierarchy.errors.get(node.path));
    else if (node.kind === 'array') nodes.push(node.description);
    else nodes.push({ kind: 'group', path: node.path, zarrFormat: node.zarrFormat, attributes: node.attributes ?? {} });
  }
  return {
    store: hierarchy.name,
    kind: hierarchy.rootKind,
    zarrFormat: hierarchy.zarrFormat,
    consolidated: hierarchy.consolidated,
    complete: hierarchy.complete,
    nodes,
    errors,
  };
}

/**
 * Lists a Zarr store (v2 or v3; a group or an array): every group and array with its metadata.
 * @param {string | {get: Function, getRange?: Function}} source URL, local directory (Node) or zarrita store
 * @param {{name?: string, hints?: string[], listMetadataKeys?: () => (string[] | Promise<string[]>), signal?: AbortSignal}} [options]
 */
export async function list(source, options = {}) {
  return listing(await openHierarchy(source, options ?? {}));
}

/**
 * The CLI's guards before an array is opened: it is there, it is an array, its metadata reads and
 * its codecs are decoded here. Throws a ZarrError naming the array and the store.
 * @param {object | null} node the hierarchy's node ({path, kind, description?, error?}) or null
 * @param {string} p the array's path @param {string} where the store's name
 */
export function checkArrayNode(node, p, where) {
  const at = { array: p, dataset: p, file: where };
  if (!node) throw new ZarrError(`zarr: ${where} has no array ${p}`, { code: CODES.NOT_FOUND, ...at });
  if (node.error) throw new ZarrError(`zarr: array ${p} in ${where}: ${node.error}`, { code: CODES.BAD_DATA, ...at });
  if (node.kind !== 'array') throw new ZarrError(`zarr: ${p} in ${where} is a ${node.kind}, not an array`, { code: CODES.BAD_DATA, ...at });
  assertReadable(node.description, where);
}

/**
 * Opens one array of a store for read(), with the CLI's guards (checkArrayNode) and what zarrita
 * alone cannot open: where the engine has no Float16Array, a float16 array opens as uint16 (its
 * bits; read() decodes the f16 chunks as such). Shards indexed at the start open too: read() reads
 * them (zarrita's get would not).
 * @param {string | {get: Function, getRange?: Function}} source URL, local directory (Node) or zarrita store
 * @param {string} path the array's path ("/t2m"; "/" for a store that is one array)
 * @param {{name?: string, signal?: AbortSignal}} [options]
 * @returns {Promise<import('zarrita').Array<any, any>>}
 */
export async function openArray(source, path, options = {}) {
  if (typeof path !== 'string') throw new TypeError('zarr openArray: pass the array\'s path in the store ("/t2m")');
  const { name, signal } = options ?? {};
  const { where, session, root, rawMetadata } = await openSession(source, { ...options, transform: float16AsBits() ? float16BitsStore : undefined });
  const p = joinPath('/', path);
  let node = null;
  let found = null;
  try {
    found = p === '/' ? root : await rawMetadata(p);
  } catch (err) {
    if (signal?.aborted) throw abortError(signal, `zarr: opening ${p} in ${where}`, ZarrError);
    // The store failed to answer (a network error after its retries): that, named, not a node.
    if (!(err instanceof ZarrError)) throw unreadable(err, where, p);
    node = { path: p, kind: 'array', error: err.message };
  }
  if (found) {
    try {
      node = { path: p, kind: found.kind, description: found.kind === 'array' ? describeArray(p, found.meta, found.attributes, zarr.registry) : undefined };
    } catch (err) {
      // Metadata that read but does not describe an array (a field of the wrong type): damaged data.
      node = { path: p, kind: 'array', error: err instanceof ZarrError ? err.message : `zarr: the metadata of ${p} in ${where} is damaged (${err?.message ?? err})` };
    }
  }
  checkArrayNode(node, p, where);
  try {
    return await session.open(p, 'array');
  } catch (err) {
    const { text } = causeChain(err);
    throw new ZarrError(`zarr: array ${p} in ${where}: ${text}`, { code: CODES.BAD_DATA, array: p, dataset: p, file: where, cause: err });
  }
}
