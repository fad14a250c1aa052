// The demo page: opens Pco files, ALP pages, Parquet files, BPCells matrices (directories and
// HDF5 files) and Zarr stores (drop, picker, URL, sample or a link), decodes them with the
// numdecode package (values in a Web Worker) and shows what is inside. Uses the package's public
// API, and js/sniff.js to tell formats apart as the CLI does. The address bar always holds the
// view on show (lib/view-state.js), so that a copied link restores it.
import * as numdecode from '../js/index.js';
import { SNIFF_BYTES, formatFromName, sniffBytes } from '../js/sniff.js';
import { $, el, formatBytes } from './lib/dom.js';
import { endsWithPar1, explainOpenError, notRecognised } from './lib/messages.js';
import { countRoundTrips } from './lib/round-trips.js';
import { loadSamples } from './lib/samples.js';
import { restored, showOpened, viewToRestore } from './lib/view-state.js';
import { renderPco } from './views/pco-view.js';
import { renderAlp } from './views/alp-view.js';
import { renderBpcells, showVector, showBlock, findByName, stopBpcells, openBpcells } from './views/bpcells-view.js';
import { filesZarrStore } from './lib/zarr-files-store.js';
import { ask } from './lib/worker-client.js';
import { filesSource, pickedFolder, readDroppedFolder } from './lib/picked-files.js';

const VIEWS = ['view-pco', 'view-alp', 'view-bpcells', 'view-zarr', 'view-parquet'];

// ---------------------------------------------------------------- status, errors

function setStage(stage, fraction = null) {
  $('status').hidden = false;
  $('stage').textContent = stage;
  const bar = $('progress');
  if (fraction === null) bar.removeAttribute('value');
  else bar.value = fraction;
}

function clearStatus() {
  $('status').hidden = true;
}

function showError(title, err) {
  clearStatus();
  const message = err instanceof Error ? err.message : String(err);
  $('error').replaceChildren(el('strong', {}, title), message);
  $('error').hidden = false;
  document.body.dataset.state = 'error';
}

function clearError() {
  $('error').hidden = true;
  $('error').replaceChildren();
}

let parquetView = null; // views/parquet-view.js, once a Parquet file has been opened

function showView(id) {
  for (const v of VIEWS) $(v).hidden = v !== id;
  if (id !== 'view-bpcells') stopBpcells();
  // An ALP page opened from a Parquet file has a way back to it: the file stays open for that.
  if (id && id !== 'view-parquet' && id !== 'view-alp') parquetView?.stopParquet();
}

// "ResizeObserver loop completed with undelivered notifications" is the browser saying a layout took
// two passes (a chart redrawn as its box resized), not a failure: it reaches this handler with no error.
window.addEventListener('error', (e) => {
  if (e.error === null && /^ResizeObserver loop/.test(e.message ?? '')) return;
  showError('Unexpected error', e.error ?? e.message);
});
window.addEventListener('unhandledrejection', (e) => showError('Unexpected error', e.reason));

const requestCsv = async () => (await ask({ op: 'csv' }, { onProgress: setStage }).finally(clearStatus)).blob;

// ---------------------------------------------------------------- opening

let openGeneration = 0;

/** Opens bytes already in memory as the chosen format ('auto', 'pco', 'alp-f32', 'alp-f64'). */
async function openBytes(name, bytes, format) {
  const generation = ++openGeneration;
  clearError();
  // The previous file's view goes: it must not pass for this file's, e.g. after an error.
  showView(null);
  $('ask-alp').hidden = true;
  if (format === 'bpcells') throw new Error('a BPCells matrix is a directory: open its folder or its base URL');
  if (bytes.length === 0) throw new Error(`${name} is empty (0 bytes): there is nothing in it to decode`);
  const sniffed = sniffBytes(bytes);
  if ((format === 'auto' || format === 'parquet') && sniffed === 'parquet') return openParquet(name, bytes);
  if (format === 'parquet') throw new Error(`${name} does not start with the Parquet magic PAR1`);
  if (format === 'hdf5' || (format === 'auto' && sniffed === 'hdf5')) return openMatrix(name, bytes);
  if (format === 'auto' && sniffed !== 'pco') {
    // No signature: an ALP page has none, and carries no dtype either, so ask if the bytes read as one.
    if (!readsAsAlp(bytes)) throw notRecognised(name);
    clearStatus();
    $('ask-alp-text').firstChild.textContent = `${name} carries no Pco, Parquet or HDF5 signature, but reads as an ALP page `;
    $('ask-alp').hidden = false;
    pendingAlp = { name, bytes };
    $('ask-alp').querySelector('button').focus();
    document.body.dataset.state = 'ask';
    return;
  }
  const kind = format === 'auto' || format === 'pco' ? 'pco' : 'alp';
  const dtype = format === 'alp-f64' ? 'f64' : 'f32';
  document.body.dataset.state = 'busy';
  setStage(`decoding ${name} (${formatBytes(bytes.length)})`);
  const copy = bytes.slice(); // the worker takes the buffer; keep ours for the views
  let result;
  try {
    result = await ask({ op: kind, bytes: copy.buffer, dtype }, { transfer: [copy.buffer], onProgress: setStage, replace: true });
  } catch (err) {
    // The Format menu keeps its last choice: an f64 page read as f32 (or the reverse) fails.
    const other = dtype === 'f32' ? 'f64' : 'f32';
    if (kind === 'alp' && err?.name === 'AlpError' && readsWhollyAs(bytes, other)) {
      throw Object.assign(new Error(`${err.message} (it reads as an ${other} page: choose "ALP ${other}" in the Format menu)`, { cause: err }), { code: err.code });
    }
    throw explainOpenError(err, { name });
  }
  if (generation !== openGeneration) return;
  setStage('drawing');
  if (kind === 'pco') {
    showView('view-pco');
    renderPco({ name, bytes, result, requestCsv });
  } else {
    showView('view-alp');
    renderAlp({ name, bytes, result, requestCsv });
  }
  clearStatus();
  document.body.dataset.state = 'ready';
  document.body.dataset.format = kind;
}

// The page's inspect() as `dtype` values, or null when the ALP reader refuses its header.
function inspectAlp(bytes, dtype) {
  try {
    return numdecode.alp.inspect(bytes, dtype);
  } catch {
    return null;
  }
}

// Whether the ALP reader accepts the bytes' header (as either value type): ALP pages have no magic.
const readsAsAlp = (bytes) => ['f32', 'f64'].some((dtype) => inspectAlp(bytes, dtype) !== null);

// Whether every vector of the page reads as `dtype` values.
const readsWhollyAs = (bytes, dtype) => inspectAlp(bytes, dtype)?.vectors.every((v) => v.error === undefined) ?? false;

let pendingAlp = null;
for (const button of $('ask-alp').querySelectorAll('button')) {
  button.addEventListener('click', () => {
    if (!pendingAlp) return;
    const { name, bytes } = pendingAlp;
    pendingAlp = null;
    $('ask-alp').hidden = true;
    runOpen(`Could not open ${name}`, () => openBytes(name, bytes, `alp-${button.dataset.dtype}`));
  });
}

/** A picked or dropped file: an HDF5 file opens lazily as a BPCells matrix group; others are read whole. */
async function openPicked(file) {
  // The head only: HDF5's signature may follow a user block (512, 1024, ... bytes).
  const head = new Uint8Array(await file.slice(0, SNIFF_BYTES).arrayBuffer());
  const format = $('format').value;
  if (format === 'hdf5' || (format === 'auto' && sniffBytes(head) === 'hdf5')) return openMatrix(file.name, file);
  return openBytes(file.name, new Uint8Array(await file.arrayBuffer()), $('format').value);
}

// A container view's start: earlier opens become stale, their messages go, its view shows busy.
function beginOpen(viewId, stage) {
  ++openGeneration;
  clearError();
  $('ask-alp').hidden = true;
  showView(viewId);
  document.body.dataset.state = 'busy';
  setStage(stage);
}

/** Opens a BPCells matrix: a base URL or {size, read} source (directory), or an HDF5 file (URL, File). */
async function openMatrix(name, source) {
  beginOpen('view-bpcells', `opening the BPCells matrix ${name}`);
  const generation = openGeneration;
  $('bp-body').hidden = true;
  const roundTrips = typeof source === 'string' ? countRoundTrips(source) : null;
  let matrix;
  try {
    matrix = await openBpcells(numdecode.bpcells, source, setStage);
  } catch (err) {
    if (generation !== openGeneration) throw new Error('superseded');
    // A missing .h5 file is "not found", not a directory without its version file.
    const url = typeof source === 'string' && formatFromName(source) === 'hdf5' ? source : undefined;
    throw explainOpenError(err, { name, url, folder: typeof source?.size === 'function' }); // filesSource: a picked folder
  }
  // Another open started meanwhile: this matrix is nobody's (showing it would close that one's file).
  if (generation !== openGeneration) {
    matrix.close?.();
    throw new Error('superseded');
  }
  $('bp-body').hidden = false;
  await renderBpcells({ name, matrix, setStage, roundTrips });
  clearStatus();
  document.body.dataset.state = 'ready';
  document.body.dataset.format = 'bpcells';
}

/** Fetches a URL with a progress bar. */
async function fetchBytes(url) {
  const response = await fetch(url);
  if (!response.ok) {
    const err = new Error(`${url}: HTTP ${response.status} ${response.statusText}`);
    err.status = response.status;
    throw err;
  }
  const total = Number(response.headers.get('Content-Length')) || 0;
  if (!response.body) return new Uint8Array(await response.arrayBuffer());
  const reader = response.body.getReader();
  const parts = [];
  let got = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    parts.push(value);
    got += value.length;
    setStage(`downloading ${formatBytes(got)}${total ? ` of ${formatBytes(total)}` : ''}`, total ? got / total : null);
  }
  const bytes = new Uint8Array(got);
  let at = 0;
  for (const p of parts) {
    bytes.set(p, at);
    at += p.length;
  }
  return bytes;
}

function lastSegment(url) {
  const parts = new URL(url).pathname.split('/').filter(Boolean);
  return decodeURIComponent(parts[parts.length - 1] ?? url);
}

async function hasVersionFile(base) {
  try {
    const r = await fetch(new URL('version', base), { method: 'HEAD' });
    return r.ok;
  } catch {
    return false;
  }
}

// Zarr (issue 17): the view loads zarrita (import map in index.html), so it is imported only
// when a store is opened; a chunk opened from it goes to the Pco view with a way back.
async function openZarrStore(name, source, { hints, listMetadataKeys, array } = {}) {
  beginOpen('view-zarr', `opening the Zarr store ${name}`);
  const generation = openGeneration;
  const view = await import('./views/zarr-view.js');
  const openPco = async (chunkName, bytes) => {
    await openBytes(chunkName, bytes, 'pco');
    $('pco-title').append(' ', el('button', { type: 'button', id: 'back-to-zarr', onclick: () => showView('view-zarr') }, `back to ${name}`));
  };
  // Actions inside the view (another array, a slice) replace an earlier action's error message.
  const runInView = (title, action) => run(title, async () => {
    clearError();
    await action();
  });
  // A store whose metadata arrives after another open began is dropped, not drawn over that one.
  const stale = () => generation !== openGeneration;
  await view.renderZarr({ name, source, hints, listMetadataKeys, array, setStage, run: runInView, openPco, stale });
  clearStatus();
  document.body.dataset.state = 'ready';
  document.body.dataset.format = 'zarr';
}

// Parquet (issue 15): numdecode/parquet reads it (hyparquet through the import map in
// index.html); a URL is read lazily, by ranges. An ALP page opens in the ALP view with a way back.
async function openParquet(name, source) {
  beginOpen('view-parquet', `opening the Parquet file ${name}`);
  const view = await import('./views/parquet-view.js');
  parquetView = view;
  const openAlpPage = async (pageName, bytes, dtype) => {
    await openBytes(pageName, bytes, `alp-${dtype}`);
    $('alp-title').append(' ', el('button', { type: 'button', id: 'back-to-parquet', onclick: () => showView('view-parquet') }, `back to ${name}`));
  };
  try {
    await view.renderParquet({ name, source, setStage, run, ask, openAlpPage, requestCsv });
  } catch (err) {
    if (err?.name !== 'ParquetError') throw explainOpenError(err, { name, url: typeof source === 'string' ? source : undefined });
    throw explainOpenError(err, { name, truncatedParquet: !endsWithPar1(await parquetTail(source)) });
  }
  clearStatus();
  document.body.dataset.state = 'ready';
  document.body.dataset.format = 'parquet';
}

// The last 4 bytes of a Parquet file (bytes, or a URL read by a suffix range), to tell a truncated file.
async function parquetTail(source) {
  if (typeof source !== 'string') return source.subarray(Math.max(0, source.length - 4));
  try {
    const r = await fetch(source, { headers: { Range: 'bytes=-4' } });
    return r.ok ? new Uint8Array(await r.arrayBuffer()).slice(-4) : new Uint8Array(0);
  } catch {
    return new Uint8Array(0);
  }
}

async function openUrl(input, format, extra = {}) {
  ++openGeneration; // an open under way, also while its bytes are still being fetched (see start())
  const url = new URL(input, location.href).href;
  // The address bar names what is being opened, so that a copied link opens it again.
  showOpened({ open: input, format, hints: extra.hints });
  // A store (…/x.zarr), a path inside one (…/x.zarr/t2m), or one of its metadata files.
  const named = formatFromName(url);
  if (format === 'zarr' || (format === 'auto' && named === 'zarr')) {
    const storeUrl = url.replace(/\/(zarr\.json|\.zgroup|\.zarray|\.zattrs|\.zmetadata)$/, '').replace(/\/+$/, '');
    const match = [...$('samples').options].find((o) => o.value && new URL(JSON.parse(o.value).url, location.href).href === new URL(input, location.href).href);
    $('samples').value = match ? match.value : '';
    return openZarrStore(lastSegment(storeUrl), storeUrl, extra);
  }
  if (format === 'hdf5' || (format === 'auto' && named === 'hdf5')) {
    // Its folder too: HDF5 files are often all called matrix.h5.
    return openMatrix(new URL(url).pathname.split('/').filter(Boolean).slice(-2).map(decodeURIComponent).join('/'), url);
  }
  if (format === 'parquet' || (format === 'auto' && named === 'parquet')) {
    return openParquet(lastSegment(url), url);
  }
  // The sample menu shows the sample being opened, or nothing.
  const match = [...$('samples').options].find((o) => o.value && new URL(JSON.parse(o.value).url, location.href).href === url);
  $('samples').value = match ? match.value : '';
  const dirUrl = url.endsWith('/') ? url : `${url}/`;
  if (format === 'bpcells' || (format === 'auto' && url.endsWith('/'))) {
    return openMatrix(lastSegment(dirUrl.replace(/\/matrix\/$/, '/')), dirUrl);
  }
  clearError();
  setStage(`downloading ${url}`);
  let bytes;
  try {
    bytes = await fetchBytes(url);
  } catch (err) {
    // Not a file: maybe a BPCells directory given without its trailing slash.
    if (format === 'auto' && err.status === 404 && (await hasVersionFile(dirUrl))) {
      return openMatrix(lastSegment(dirUrl.replace(/\/matrix\/$/, '/')), dirUrl);
    }
    throw explainOpenError(err, { url });
  }
  return openBytes(lastSegment(url), bytes, format);
}

/** Runs an action, turning any failure into a message on the page. */
let finishedActions = 0;
async function run(title, action) {
  try {
    await action();
  } catch (err) {
    if (err?.message === 'superseded') return;
    showError(title, err);
  } finally {
    // A counter that tells scripts (and the end-to-end tests) an action has finished.
    document.body.dataset.actions = String(++finishedActions);
  }
}

// Brings the view on show into sight when it starts below the fold (on a phone it always does).
function revealView() {
  const view = VIEWS.map((id) => $(id)).find((v) => !v.hidden);
  if (view && view.getBoundingClientRect().top > innerHeight * 0.6) view.scrollIntoView({ block: 'start' });
}

/**
 * Runs an open: on failure no earlier file's view stays on show under the message (it would pass
 * for this file's); on success the view is brought into sight unless `reveal` is false.
 */
function runOpen(title, action, { reveal = true } = {}) {
  return run(title, async () => {
    try {
      await action();
    } catch (err) {
      if (err?.message !== 'superseded') showView(null);
      throw err;
    }
    if (reveal && document.body.dataset.state === 'ready') revealView();
  });
}

// ---------------------------------------------------------------- controls

$('file-input').addEventListener('change', (e) => {
  const file = e.target.files[0];
  if (!file) return;
  showOpened(); // a file from the disk: no address restores it
  runOpen(`Could not open ${file.name}`, async () => openPicked(file));
  e.target.value = '';
});

$('dir-input').addEventListener('change', (e) => {
  showOpened();
  const picked = [...e.target.files];
  e.target.value = '';
  const folder = (picked[0]?.webkitRelativePath ?? '').split('/')[0] || 'folder';
  runOpen(`Could not open the folder ${folder}`, () => {
    const chosen = pickedFolder(picked); // a store or a matrix, at its top or in a folder inside it
    if (chosen.zarr) {
      const { store, listMetadataKeys, name } = filesZarrStore(chosen.zarr);
      return openZarrStore(name, store, { listMetadataKeys });
    }
    return openMatrix(folder, filesSource(chosen.files));
  });
});

const drop = $('drop');
drop.addEventListener('click', () => $('file-input').click());
drop.addEventListener('keydown', (e) => {
  if (e.key === 'Enter' || e.key === ' ') {
    e.preventDefault();
    $('file-input').click();
  }
});
for (const type of ['dragenter', 'dragover']) {
  document.addEventListener(type, (e) => {
    e.preventDefault();
    drop.classList.add('over');
  });
}
document.addEventListener('dragleave', (e) => {
  if (e.relatedTarget === null) drop.classList.remove('over');
});
document.addEventListener('drop', (e) => {
  e.preventDefault();
  drop.classList.remove('over');
  const item = [...(e.dataTransfer?.items ?? [])].find((i) => i.kind === 'file');
  const entry = item?.webkitGetAsEntry?.();
  if (entry?.isDirectory) {
    showOpened();
    runOpen(`Could not open the folder ${entry.name}`, async () => {
      // An open under way while the folder is listed: a later open supersedes it (see openUrl).
      const generation = ++openGeneration;
      setStage(`reading the folder ${entry.name}`);
      const dropped = await readDroppedFolder(entry);
      if (generation !== openGeneration) throw new Error('superseded');
      if (!dropped.zarr) return openMatrix(entry.name, filesSource(dropped.files));
      const { store, listMetadataKeys, name } = filesZarrStore(dropped.zarr);
      return openZarrStore(name, store, { listMetadataKeys });
    });
    return;
  }
  const file = e.dataTransfer?.files?.[0];
  if (file) {
    showOpened();
    runOpen(`Could not open ${file.name}`, async () => openPicked(file));
  }
});

$('url-form').addEventListener('submit', (e) => {
  e.preventDefault();
  const url = $('url').value.trim();
  if (url) runOpen(`Could not open ${url}`, () => openUrl(url, $('format').value));
});

$('sample-form').addEventListener('submit', (e) => {
  e.preventDefault();
  const value = $('samples').value;
  if (!value) return;
  const { url, format, hints } = JSON.parse(value);
  runOpen(`Could not open ${url}`, () => openUrl(url, format, { hints }));
});

$('bp-pick').addEventListener('submit', (e) => {
  e.preventDefault();
  run('Could not read that vector', async () => {
    const name = $('bp-pick-name').value.trim();
    const k = name ? findByName(name) : Number($('bp-pick-index').value);
    if (name) $('bp-pick-index').value = String(k);
    await showVector(k);
  });
});

$('bp-heat').addEventListener('submit', (e) => {
  e.preventDefault();
  run('Could not draw the heatmap', () => showBlock());
});

// ---------------------------------------------------------------- start

async function start() {
  // The link the page was opened with, and whether the user opens something before the page is
  // ready (the samples list may come late): their open wins, and is not opened a second time from
  // the address bar it has rewritten meanwhile.
  const link = viewToRestore();
  restored(); // armed again below if the page opens it: a user's own open must not restore its parts
  const generation = openGeneration;
  try {
    await numdecode.init();
    const info = numdecode.buildInfo();
    const formats = ['Pco', 'ALP', 'Parquet (ALP columns)', 'BPCells (directories and HDF5)', 'Zarr (pcodec)'];
    $('build').textContent = `numdecode ${info.version}, ${info.simd ? 'WebAssembly SIMD128' : 'scalar WebAssembly'} build; formats: ${formats.join(', ')}.`;
  } catch (err) {
    showError('Could not load the numdecode WebAssembly module', err);
    return;
  }
  const defaultSample = await loadSamples();
  // A link (?open=URL&format=...&array=...&slice=...: lib/view-state.js) opens its view; otherwise
  // the first sample shows something real.
  const userOpened = generation !== openGeneration; // the user's own open is under way or done
  if (userOpened) {
    // nothing to add
  } else if (link) {
    viewToRestore(); // the address is still the link's: nothing else was opened
    $('url').value = link.open;
    const format = link.format ?? 'auto';
    $('format').value = [...$('format').options].some((o) => o.value === format) ? format : 'auto';
    await runOpen(`Could not open ${link.open}`, () => openUrl(link.open, format, { array: link.array, hints: link.hints?.split(',') }));
    restored();
  } else if (defaultSample) {
    await runOpen(`Could not open ${defaultSample.file}`, () => openUrl(`samples/${defaultSample.file}`, defaultSample.format), { reveal: false });
  } else {
    // No sample of our own: a 2-million-value Pco file from the corpus when it is served.
    const options = [...$('samples').options].filter((o) => o.value && !o.value.includes('damaged'));
    const pick = options.find((o) => o.value.includes('bench_f64_sensor_2m')) ?? options[0];
    if (pick) {
      const { url: first, format } = JSON.parse(pick.value);
      await runOpen(`Could not open ${first}`, () => openUrl(first, format), { reveal: false });
    }
  }
  document.body.dataset.started = 'yes';
}

start();
