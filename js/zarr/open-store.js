// Opens a Zarr store in the fewest round trips (issue 27). zarrita, asked to open a store it has not
// seen, tries Zarr v2 first: .zmetadata, then .zattrs, .zarray and .zgroup, four 404s one after
// another before a v3 store's zarr.json. Here the root's v3 and v2 documents (zarr.json and the
// consolidated .zmetadata) are asked for together, in one round trip; whichever answers says the
// version, which zarrita then opens directly (zarr.open.v3 / .v2), with the consolidated metadata
// when the store has it. The store handed back remembers every metadata document it served, so a
// read (js/zarr/read.js) finds its array's without another request. list() (list.js) and the
// explorer (js/zarr-explore/) open stores here.
import * as zarr from 'zarrita';
import { KNOWN_METADATA } from './layout.js';
import { LOCAL_FOLDER, localFolderOf } from './local-store.js';

const METADATA_DOC = /(^|\/)(zarr\.json|\.zarray|\.zgroup)$/;
const decoder = new TextDecoder();

function parse(bytes) {
  try {
    return JSON.parse(decoder.decode(bytes));
  } catch {
    return null; // zarrita reports bad JSON itself, naming the key
  }
}

function forward(store, into) {
  if (typeof store.getRange === 'function') into.getRange = (key, range, options) => store.getRange(key, range, options);
  if (typeof store.contents === 'function') into.contents = () => store.contents();
  if (store.stats) into.stats = store.stats;
  return into;
}

const METADATA_KEY = /(^|\/)(zarr\.json|\.zarray|\.zgroup|\.zattrs|\.zmetadata)$/;

// Keeps every metadata answer (found or not, the probe's first): zarrita and the explorer ask for
// the same documents again (the explorer to describe a node, zarrita to open it), and a store's
// metadata does not change while it is open. Once the store turns out consolidated, a metadata
// document the consolidated one does not hold is not there (no request asks again).
function metadataCache(store, answers) {
  let consolidated = false;
  return forward(store, {
    markConsolidated: () => (consolidated = true),
    get(key, options) {
      if (answers.has(key)) return answers.get(key);
      if (consolidated && METADATA_KEY.test(key)) return Promise.resolve(undefined);
      const answer = store.get(key, options);
      if (!METADATA_KEY.test(key)) return answer;
      const kept = answer.then((bytes) => bytes ?? undefined);
      answers.set(key, kept);
      kept.catch(() => answers.delete(key)); // a failed request may be retried
      return kept;
    },
  });
}

/** A store that keeps the metadata documents it has served, for read()'s layout (KNOWN_METADATA). */
export function metadataMemo(store) {
  const docs = new Map(); // key -> parsed document
  return forward(store, {
    async get(key, options) {
      const bytes = await store.get(key, options);
      if (bytes && METADATA_DOC.test(key)) {
        const doc = parse(bytes);
        if (doc) docs.set(key, doc);
      }
      return bytes;
    },
    [KNOWN_METADATA](path) {
      const base = path.endsWith('/') ? path : `${path}/`;
      return docs.get(`${base}zarr.json`) ?? docs.get(`${base}.zarray`);
    },
  });
}

/**
 * @param {{get: Function, getRange?: Function}} inner the store as given (FetchStore, LocalStore, ...)
 * @param {{signal?: AbortSignal, transform?: (store: object) => object}} [options] transform: a wrapper
 *   of metadata documents put between the metadata layer and zarrita (the float16-as-bits rewrite);
 *   chunk bytes pass through it unchanged
 * @returns {Promise<{store: object, raw: object, version: 'v2' | 'v3', consolidated: boolean,
 *   open: (path: string, kind?: 'array' | 'group') => Promise<any>}>} store: for zarrita (and read());
 *   raw: the metadata as written (consolidated, not transformed)
 */
export async function openStore(inner, { signal, transform } = {}) {
  const [v3, v2] = await Promise.all([inner.get('/zarr.json', { signal }), inner.get('/.zmetadata', { signal })]);
  const base = metadataCache(inner, new Map([['/zarr.json', Promise.resolve(v3 ?? undefined)], ['/.zmetadata', Promise.resolve(v2 ?? undefined)]]));
  const version = v3 ? 'v3' : 'v2';
  const root = v3 ? parse(v3) : v2 ? parse(v2) : null;
  const hasConsolidated = v3 ? root?.consolidated_metadata?.metadata != null : root?.metadata != null;
  let raw = base;
  if (hasConsolidated) {
    try {
      raw = await zarr.withConsolidatedMetadata(base, { format: version });
      base.markConsolidated();
    } catch {
      raw = base; // malformed consolidated metadata: read node by node
    }
  }
  const store = metadataMemo(transform ? transform(raw) : raw);
  // These layers (zarrita's consolidated one and a transform too) rewrite metadata only and hand
  // chunk bytes through unchanged: a local folder stays one for read() (lent chunks, files read
  // ahead, workers reading files themselves).
  const local = localFolderOf(inner);
  if (local) store[LOCAL_FOLDER] = local;
  const open = (path, kind) => zarr.open[version](zarr.root(store).resolve(path), kind ? { kind, signal } : { signal });
  return { store, raw, version, consolidated: raw !== base, open };
}
