// Zarr view: a store opened by URL or folder through zarrita with numdecode's pcodec codec
// (js/zarr-explore). Shows the hierarchy, each array's metadata and codec chain, and a slice of
// an N-D array: one dimension as the zoomable line plot, two as a heatmap (zarr-slice-view.js:
// coordinates, units, readouts, downloads), the others fixed by sliders that show their coordinate.
// Only the chunks a slice covers are fetched (live counter); pcodec chunks decode in the worker
// pool; a chunk opens in the Pco view.
import { $, counted, el, fillGrid, fillKv, formatBytes, formatInt, plural } from '../lib/dom.js';
import { noteMissingChunks } from '../lib/missing-chunks.js';
import { countRoundTrips } from '../lib/round-trips.js';
import { clearSlice, loadCoordinates, restoreSlice, showSlice, sliceElements, wireSlice } from './zarr-slice-view.js';
import { createWorkerPool } from '../../js/worker/index.js';
import { openZarr } from '../../js/zarr-explore/explorer.js';
import { undecodableCodecs } from '../../js/zarr/describe.js';
import { chunkCount, chunkRanges, sliceText } from '../../js/zarr-explore/slice.js';

const MAX_LINE = 4_000_000; // values in a line plot
const MAX_SIDE = 2048; // heatmap rows or columns
const DEFAULT_SIDE = 1024;

let pool = null;
let current = null; // {explorer, openPco, timer, array?: {...}}

function updateCounter() {
  if (!current || $('view-zarr').hidden) return; // kept for the way back from a chunk's Pco view; idle meanwhile
  const { requests, bytes, chunkRequests } = current.explorer.stats;
  $('zarr-requests').textContent = formatInt(requests);
  $('zarr-bytes').textContent = formatBytes(bytes);
  $('zarr-chunk-requests').textContent = formatInt(chunkRequests);
  // Round trips only over the network (a folder from the disk has none: its reads are counted).
  $('zarr-fetched-label').textContent = current.roundTrips ? 'Fetched so far: ' : 'Read from the disk so far: ';
  $('zarr-requests-word').textContent = current.roundTrips ? plural(requests, ' request (', ' requests (') : plural(requests, ' read (', ' reads (');
  $('zarr-round-trips-part').hidden = !current.roundTrips;
  if (current.roundTrips) {
    const trips = current.roundTrips();
    $('zarr-round-trips').textContent = formatInt(trips);
    $('zarr-round-trips-word').textContent = plural(trips, ' round trip', ' round trips');
  }
  // The pool lives as long as the page: its count since this store was opened.
  const decoded = pool ? pool.stats().completed - current.poolBase : undefined;
  $('zarr-pool').textContent = pool ? `; chunks of this store decoded in ${pool.size} workers so far: ${formatInt(decoded)}` : '; chunks decoded on the page (no worker pool)';
  $('zarr-pool').dataset.completed = String(decoded ?? 0);
}

function skeleton() {
  const counter = el('p', { class: 'fetched', 'aria-live': 'off' }, el('span', { id: 'zarr-fetched-label' }, 'Fetched so far: '),
    el('strong', { id: 'zarr-requests' }, '0'), el('span', { id: 'zarr-requests-word' }, ' requests ('), el('strong', { id: 'zarr-chunk-requests' }, '0'), ' for chunks)',
    el('span', { id: 'zarr-round-trips-part' }, ' in ', el('strong', { id: 'zarr-round-trips' }, '0'), el('span', { id: 'zarr-round-trips-word' }, ' round trips')), ', ',
    el('strong', { id: 'zarr-bytes' }, '0 B'), el('span', { id: 'zarr-pool' }));
  const addForm = el('form', { id: 'zarr-add', class: 'row' },
    el('label', { class: 'grow' }, 'Open an array by path ', el('input', { id: 'zarr-add-path', autocomplete: 'off', placeholder: 'e.g. labels or group/array' })),
    el('button', { type: 'submit' }, 'Open'));
  addForm.addEventListener('submit', (e) => {
    e.preventDefault();
    const p = $('zarr-add-path').value.trim();
    if (p) current?.run('Could not open that array', () => addAndSelect(p));
  });
  $('view-zarr').replaceChildren(
    el('h2', { id: 'zarr-title' }, 'Zarr'),
    counter,
    el('div', { class: 'columns' },
      el('div', { class: 'card' },
        el('h3', {}, 'Hierarchy'),
        el('p', { id: 'zarr-store-facts', class: 'muted small' }),
        el('div', { id: 'zarr-tree', class: 'tree' }),
        addForm,
        el('p', { id: 'zarr-codec-note', class: 'muted small', hidden: true })),
      el('div', { class: 'card' },
        el('h3', { id: 'zarr-array-title' }, 'Array'),
        el('table', { id: 'zarr-meta', class: 'kv' }),
        el('h3', {}, 'Codec chain'),
        el('div', { class: 'table-wrap' }, el('table', { id: 'zarr-codecs', class: 'grid' })),
        el('h3', {}, 'Attributes'),
        el('table', { id: 'zarr-attrs', class: 'kv' }))),
    el('div', { class: 'card', id: 'zarr-slice-card' },
      el('h3', {}, 'Slice'),
      el('div', { id: 'zarr-dims' }),
      el('div', { class: 'row' }, el('button', { type: 'button', id: 'zarr-draw' }, 'Draw')),
      el('p', { id: 'zarr-slice-summary', class: 'muted' }),
      el('p', { id: 'zarr-slice-error', class: 'error', role: 'alert', hidden: true }),
      ...sliceElements(),
      el('form', { id: 'zarr-chunk-form', class: 'row' },
        el('label', {}, 'Chunk ', el('input', { id: 'zarr-chunk', autocomplete: 'off', size: 12 })),
        el('button', { type: 'submit' }, 'Open in the Pco view'),
        el('span', { id: 'zarr-chunk-note', class: 'muted small' }))),
  );
  $('zarr-draw').addEventListener('click', () => current?.run('Could not read the slice', () => drawSlice()));
  $('zarr-chunk-form').addEventListener('submit', (e) => {
    e.preventDefault();
    const coords = $('zarr-chunk').value.split(',').map((s) => Number(s.trim()));
    current?.run('Could not open the chunk', () => openChunk(coords));
  });
  wireSlice({ run: (title, action) => current?.run(title, action), openChunk: (coords) => openChunk(coords) });
}

function shapeText(shape) {
  return shape?.length ? shape.join(' × ') : 'scalar';
}

function renderTree() {
  const { explorer } = current;
  const items = explorer.nodes.map((node) => {
    const depth = node.path === '/' ? 0 : node.path.split('/').length - 1;
    const label = node.path === '/' ? `/ (${explorer.rootKind}, Zarr v${explorer.zarrFormat})` : node.path.slice(node.path.lastIndexOf('/') + 1);
    if (node.kind !== 'array' || node.error) {
      return el('li', { style: `margin-left:${depth}rem` }, el('strong', {}, label), node.error ? el('span', { class: 'error-text' }, ` ${node.error}`) : ' (group)');
    }
    const d = node.description;
    const button = el('button', { type: 'button', class: 'linklike', dataset: { path: node.path } }, label);
    button.addEventListener('click', () => current?.run(`Could not open ${node.path}`, () => selectArray(node.path)));
    return el('li', { style: `margin-left:${depth}rem`, dataset: { node: node.path } }, button,
      el('span', { class: 'muted small' }, ` ${d.dataType} [${shapeText(d.shape)}]${undecodableCodecs(d).length ? ' — codec not decodable here' : ''}`));
  });
  $('zarr-tree').replaceChildren(el('ul', { class: 'plain' }, items));
  $('zarr-store-facts').textContent = explorer.consolidated
    ? 'Consolidated metadata: the whole hierarchy came in one request.'
    : 'No consolidated metadata: over HTTP a group cannot list its children, so this shows the arrays the sample menu, a folder listing or dimension names named. Open others by path below.';
  const missing = new Set(explorer.nodes.flatMap((n) => (n.description ? undecodableCodecs(n.description) : [])));
  $('zarr-codec-note').hidden = missing.size === 0;
  $('zarr-codec-note').textContent = missing.size ? `Codecs in this store that neither numdecode nor zarrita decodes: ${[...missing].join(', ')}.` : '';
}

function renderMeta(d) {
  const json = (v) => JSON.stringify(v);
  fillKv($('zarr-meta'), [
    ['path', d.path, 'path'],
    ['Zarr format', String(d.zarrFormat), 'zarr-format'],
    ['shape', shapeText(d.shape), 'shape'],
    ['data type', d.v2Dtype ? `${d.dataType} (${d.v2Dtype})` : d.dataType, 'dtype'],
    ['chunk shape', d.chunks ? shapeText(d.chunks) : '–', 'chunks'],
    ['shard shape', d.shards ? shapeText(d.shards) : null, 'shards'],
    ['shard index', d.indexLocation ? `at the ${d.indexLocation}` : null, 'index-location'],
    ['chunk key encoding', `${d.chunkKeyEncoding.name}, separator "${d.chunkKeyEncoding.separator}"`, 'chunk-key-encoding'],
    ['fill value', json(d.fillValue), 'fill-value'],
    ['order', d.order, 'order'],
    ['dimension names', d.dimensionNames ? d.dimensionNames.join(', ') : 'none', 'dims'],
  ]);
  fillGrid($('zarr-codecs'), ['codec', 'role', 'decoded by', 'configuration'], d.codecs.map((c) => [
    el('span', { style: `padding-left:${c.depth}rem`, dataset: { codec: c.name } }, c.name),
    c.role,
    c.decoder ?? el('strong', { class: 'error-text' }, 'nothing here'),
    el('code', { class: 'small' }, json(c.configuration)),
  ]));
  const attrs = Object.entries(d.attributes ?? {});
  fillKv($('zarr-attrs'), attrs.length ? attrs.map(([k, v]) => [k, typeof v === 'string' ? v : json(v)]) : [['', 'none']]);
}

// One row per dimension: its role (plot axis, heatmap rows, or a fixed index) and range.
function renderDims(a) {
  const { shape } = a.array;
  const names = a.description.dimensionNames ?? [];
  const rows = shape.map((n, d) => {
    const role = el('select', { dataset: { dim: d, field: 'role' }, 'aria-label': `role of dimension ${d}` },
      ['x', 'y', 'index'].map((r) => el('option', { value: r, selected: a.roles[d] === r }, r === 'x' ? 'x (columns / plot)' : r === 'y' ? 'y (rows)' : 'fixed index')));
    const slider = el('input', { type: 'range', min: 0, max: n - 1, value: a.index[d], dataset: { dim: d, field: 'slider' }, 'aria-label': `index of dimension ${d}` });
    const number = el('input', { type: 'number', min: 0, max: n - 1, value: a.index[d], dataset: { dim: d, field: 'index' }, style: 'width:6rem' });
    const from = el('input', { type: 'number', min: 0, max: n - 1, value: a.from[d], dataset: { dim: d, field: 'from' }, style: 'width:6rem' });
    const count = el('input', { type: 'number', min: 1, max: n, value: a.count[d], dataset: { dim: d, field: 'count' }, style: 'width:6rem' });
    // The fixed index's coordinate (a date, a latitude), when the dimension has one.
    const coord = a.coords?.[d];
    const where = el('span', { class: 'muted', dataset: { dim: d, field: 'coord' } });
    const showWhere = () => (where.textContent = coord ? `${coord.dim} = ${coord.q.exact(coord.values[a.index[d]])}` : '');
    showWhere();
    const fixed = el('span', { class: 'row', hidden: a.roles[d] !== 'index' }, slider, number, where);
    const inline = 'display:inline-flex; gap:.3rem; align-items:center';
    const range = el('span', { hidden: a.roles[d] === 'index', style: inline }, el('label', { style: inline }, 'from ', from), el('label', { style: inline }, 'count ', count));
    role.addEventListener('change', () => {
      a.roles[d] = role.value;
      // One x and at most one y: a dimension taking a role the others had gives theirs up.
      a.roles.forEach((r, k) => {
        if (k !== d && r === role.value && r !== 'index') a.roles[k] = 'index';
      });
      if (!a.roles.includes('x')) {
        const k = a.roles.findIndex((r, j) => j !== d && r === 'index');
        a.roles[k >= 0 ? k : d] = 'x';
      }
      renderDims(a);
      current.run('Could not read the slice', () => drawSlice());
    });
    let timer = null;
    const setIndex = (v, immediate) => {
      const i = Math.max(0, Math.min(n - 1, Math.floor(Number(v) || 0)));
      slider.value = number.value = String(i);
      if (i === a.index[d]) return; // e.g. a change event after the slider already moved there
      a.index[d] = i;
      showWhere();
      clearTimeout(timer);
      timer = setTimeout(() => current?.run('Could not read the slice', () => drawSlice()), immediate ? 0 : 150);
    };
    slider.addEventListener('input', () => setIndex(slider.value, false));
    number.addEventListener('change', () => setIndex(number.value, true));
    from.addEventListener('change', () => (a.from[d] = Math.max(0, Math.min(n - 1, Math.floor(Number(from.value) || 0)))));
    count.addEventListener('change', () => (a.count[d] = Math.max(1, Math.min(n, Math.floor(Number(count.value) || 1)))));
    return el('div', { class: 'row', dataset: { dimRow: d } },
      el('strong', {}, `${names[d] ?? `dim ${d}`}`), el('span', { class: 'muted' }, ` (${formatInt(n)})`), role, fixed, range);
  });
  $('zarr-dims').replaceChildren(...rows);
}

async function addAndSelect(p) {
  const node = await current.explorer.addNode(p);
  if (!node) throw new Error(`${current.explorer.name} has no array or group at ${p}`);
  renderTree();
  if (node.kind === 'array') await selectArray(node.path);
}

function showSliceError(message) {
  $('zarr-slice-error').hidden = !message;
  $('zarr-slice-error').textContent = message ?? '';
  $('zarr-slice-card').dataset.error = message ? 'yes' : '';
}

/** Shows an array's metadata and draws its default slice. */
export async function selectArray(path) {
  const node = current.explorer.nodes.find((n) => n.path === path) ?? (await current.explorer.addNode(path));
  for (const li of $('zarr-tree').querySelectorAll('li')) li.classList.toggle('selected', li.dataset.node === path);
  $('zarr-array-title').textContent = `Array ${path}`;
  current.array = null;
  clearSlice();
  $('zarr-dims').replaceChildren();
  $('zarr-slice-summary').textContent = '';
  $('view-zarr').dataset.array = path;
  if (node?.description) renderMeta(node.description);
  let opened;
  try {
    opened = await current.explorer.openArray(path);
  } catch (err) {
    // What zarrita cannot read is said here; the page and the rest of the store stay usable.
    showSliceError(err.message);
    return;
  }
  showSliceError(null);
  const { shape } = opened.array;
  const nd = shape.length;
  const roles = shape.map((_, d) => (d === nd - 1 ? 'x' : d === nd - 2 ? 'y' : 'index'));
  const a = {
    ...opened,
    path,
    roles,
    index: shape.map(() => 0),
    from: shape.map(() => 0),
    count: shape.map((n, d) => Math.min(n, nd === 1 ? MAX_LINE : d === nd - 1 || d === nd - 2 ? DEFAULT_SIDE : n)),
    // Coordinate arrays (1-D arrays named like the dimensions) label the axes and readouts.
    coords: await loadCoordinates((p) => current.explorer.read(p, ''), opened.description, current.explorer.nodes),
  };
  restoreSlice(a); // the slice and roles a link asks for
  current.array = a;
  renderDims(a);
  updateCounter();
  if (nd > 0) await drawSlice();
}

function parsedSlice(a) {
  const { shape } = a.array;
  const xDim = a.roles.indexOf('x');
  const yDim = a.roles.indexOf('y');
  return shape.map((n, d) => {
    if (d !== xDim && d !== yDim) return { index: a.index[d] };
    const limit = d === yDim || yDim >= 0 ? MAX_SIDE : MAX_LINE;
    const start = Math.min(a.from[d], n - 1);
    return { start, stop: Math.min(n, start + Math.min(limit, a.count[d])), step: 1 };
  });
}

// Reads run one after another, so that each one's request count is its own (and a chunk opened
// for the Pco view is the only one decoded while it is captured).
function enqueue(shown, task) {
  const result = shown.queue.then(task);
  shown.queue = result.catch(() => {});
  return result;
}

/** Reads the slice the controls describe and draws it (only the latest of several queued). */
export function drawSlice() {
  const shown = current;
  if (!shown?.array) return Promise.resolve();
  const ticket = ++shown.drawCount;
  return enqueue(shown, () => (shown === current && ticket === shown.drawCount ? drawNow(shown, ticket) : undefined));
}

async function drawNow(shown, ticket) {
  const a = shown.array;
  const parsed = parsedSlice(a);
  const before = { ...shown.explorer.stats };
  let got;
  // Chunks read so far, in the summary line until the slice is drawn (a large slice takes a while).
  const onProgress = ({ chunks, totalChunks }) => {
    if (shown === current && ticket === current.drawCount) $('zarr-slice-summary').textContent = `reading ${a.path}: ${formatInt(chunks)} of ${formatInt(totalChunks)} chunks`;
  };
  try {
    got = await shown.explorer.read(a.path, parsed, { onProgress });
  } catch (err) {
    // The previous slice must not stay on show under the message as if it were this one.
    if (shown === current && a === current.array) clearSlice();
    throw err;
  }
  // A newer slice, array or store is on its way.
  if (shown !== current || ticket !== current.drawCount || a !== current.array) return;
  const requests = current.explorer.stats.chunkRequests - before.chunkRequests;
  const bytes = current.explorer.stats.bytes - before.bytes;
  const covered = chunkCount(chunkRanges(parsed, a.array.chunks));
  const text = sliceText(parsed, a.array.shape);
  const summary = $('zarr-slice-summary');
  summary.textContent = `${a.path}[${text}]: ${shapeText(got.shape)} values, ${counted(covered, 'chunk')} covered; read with ${counted(requests, 'chunk request')}, ${formatBytes(bytes)}.`;
  Object.assign(summary.dataset, { path: a.path, slice: text, covered: String(covered), requests: String(requests), bytes: String(bytes) });
  const firstChunk = parsed.map((p, d) => Math.floor((p.index ?? p.start) / a.array.chunks[d]));
  $('zarr-chunk').value = firstChunk.join(',');
  showSlice({ a, parsed, got, coords: a.coords, missing: shown.missing });
  $('view-zarr').dataset.drawn = String(current.drawCount);
  updateCounter();
}

/** Opens one pcodec chunk (inner chunk of a shard) in the Pco view. */
async function openChunk(coords) {
  const shown = current;
  const a = shown?.array;
  if (!a) return;
  const before = shown.explorer.stats.chunkRequests;
  const bytes = await enqueue(shown, () => shown.explorer.chunkBytes(a.path, coords));
  updateCounter();
  if (!bytes) {
    $('zarr-chunk-note').textContent = `chunk ${coords.join(',')} is not stored: it reads as the fill value ${JSON.stringify(a.description.fillValue)}`;
    return;
  }
  $('zarr-chunk-note').textContent = `chunk ${coords.join(',')}: ${formatBytes(bytes.length)} (${counted(current.explorer.stats.chunkRequests - before, 'request')})`;
  await current.openPco(`${a.path.slice(1)} chunk ${coords.join('.')}`, bytes);
}

/**
 * Opens a store and shows it.
 * @param {{name: string, source: string | object, hints?: string[], listMetadataKeys?: Function,
 *   setStage?: Function, openPco: (name: string, bytes: Uint8Array) => Promise<void>,
 *   run: (title: string, action: Function) => Promise<void>}} options
 */
export async function renderZarr({ name, source, hints, listMetadataKeys, setStage, openPco, run, array, stale = () => false }) {
  stopZarr();
  setStage?.('starting the decode workers');
  if (!pool) pool = await createWorkerPool({ size: Math.min(2, navigator.hardwareConcurrency || 2) }).catch(() => null);
  setStage?.(`reading the metadata of ${name}`);
  const roundTrips = typeof source === 'string' ? countRoundTrips(source) : null;
  // Chunks the store answers "not there" for are noted, to hatch them as not stored.
  const { store, missing } = noteMissingChunks(source);
  const explorer = await openZarr(store, { name, hints, listMetadataKeys, pool });
  if (stale()) throw new Error('superseded'); // another open began meanwhile: it owns the view
  current = { explorer, missing, roundTrips, openPco, run, drawCount: 0, queue: Promise.resolve(), poolBase: pool?.stats().completed ?? 0, timer: setInterval(updateCounter, 250) };
  skeleton();
  $('zarr-title').textContent = `Zarr: ${name}`;
  renderTree();
  updateCounter();
  const arrays = explorer.nodes.filter((n) => n.kind === 'array' && n.description);
  const wanted = array ? `/${array.replace(/^\/+/, '')}` : null;
  let notThere = null; // why the link's array is not the one on show
  if (wanted && !arrays.some((n) => n.path === wanted)) {
    // A store without consolidated metadata lists only what it was told of: the link's array is
    // looked up by its path. Not an array there: the store's own pick is shown, and a message says why.
    setStage?.(`reading ${wanted}`);
    const node = await explorer.addNode(wanted).catch((err) => err);
    renderTree();
    if (node?.kind === 'array' && node.description) arrays.push(node);
    else if (node instanceof Error || node?.error) notThere = node instanceof Error ? node : new Error(node.error);
    else notThere = new Error(`${name} has no array at ${wanted}${node ? ` (it is a ${node.kind})` : ''}`);
  }
  // The requested array, else the one with the most dimensions (the data, not a coordinate).
  const pick = (wanted && arrays.find((n) => n.path === wanted)) ??
    arrays.filter((n) => !undecodableCodecs(n.description).length && n.description.indexLocation !== 'start')
      .sort((p, q) => q.description.shape.length - p.description.shape.length)[0];
  if (pick) {
    setStage?.(`reading ${pick.path}`);
    await selectArray(pick.path);
  }
  if (notThere) run(`The link's array ${wanted} is not shown`, () => Promise.reject(notThere));
}

export function stopZarr() {
  if (current?.timer) clearInterval(current.timer);
  current = null;
}

/** The explorer on show (for scripts and tests): its request counts. */
export function zarrStats() {
  return current ? { ...current.explorer.stats, keys: [...current.explorer.stats.keys] } : null;
}
