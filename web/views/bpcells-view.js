// BPCells view: a matrix directory or HDF5 matrix group opened lazily with bpcells.open(); a
// group chooser when an HDF5 file holds several matrices. Shows its facts and the
// size of each array file against the plain size of what it stores, one column (or row) at a
// time, and a heatmap of a block with its row and column names, a colour bar (diverging when the
// values have both signs) and exact values under the pointer, downloadable as CSV or .npy. Only
// the byte ranges needed are fetched; the counter shows the requests and bytes so far.
import { $, counted, download, el, fillGrid, fillKv, formatBytes, formatInt, plural } from '../lib/dom.js';
import { drawStems } from '../lib/plot.js';
import { colorScale, drawColorBar, drawHeatmap, followPointer, heatmapCellAt } from '../lib/heatmap.js';
import { csvBlob } from '../lib/csv.js';
import { npyBlob } from '../lib/npy.js';
import { redrawOnThemeChange } from '../lib/theme.js';
import { formatValue } from '../lib/values.js';
import { toRestore, updateView } from '../lib/view-state.js';

const MAX_VECTOR_ROWS = 500;
const MAX_BLOCK = 400;
const ELEM_BYTES = { u32: 4, f32: 4, f64: 8 };

let current = null; // {matrix, rowNames, colNames, timer}

function updateCounter() {
  if (!current) return;
  const { requests, bytes } = current.matrix.stats;
  $('bp-requests').textContent = formatInt(requests);
  $('bp-bytes').textContent = formatBytes(bytes);
  // Round trips only over the network (a file or folder from the disk has none: its reads are counted).
  $('bp-fetched-label').textContent = current.roundTrips ? 'Fetched so far: ' : 'Read from the disk so far: ';
  $('bp-requests-word').textContent = current.roundTrips ? plural(requests, ' request', ' requests') : plural(requests, ' read', ' reads');
  $('bp-round-trips-part').hidden = !current.roundTrips;
  if (current.roundTrips) {
    const trips = current.roundTrips();
    $('bp-round-trips').textContent = formatInt(trips);
    $('bp-round-trips-word').textContent = plural(trips, ' round trip', ' round trips');
  }
}

// "1 non-zero", "26 non-zeros".
const nonZeros = (n) => counted(n, 'non-zero');

// A vector's sum: exact while a double holds it for integer values, else 8 significant digits
// (the zeros trimmed off the digits only: 1.0737419e+10 keeps its exponent, 20000000 its zeros).
function formatSum(sum, dtype) {
  if (dtype === 'u32' && Number.isSafeInteger(sum)) return String(sum);
  const [digits, exponent] = sum.toPrecision(8).split('e');
  const trimmed = digits.includes('.') ? digits.replace(/\.?0+$/, '') : digits;
  return exponent === undefined ? trimmed : `${trimmed}e${exponent}`;
}

// Empties a canvas (a chart of the previous matrix must not stay on show). The heatmap's theme
// redraw stays (it draws nothing while no block is on show); the vector's is replaced.
function clearCanvas(canvas) {
  canvas.getContext('2d')?.clearRect(0, 0, canvas.width, canvas.height);
}

function axisNames(matrix) {
  const major = matrix.storageOrder === 'col' ? 'column' : 'row';
  const minor = matrix.storageOrder === 'col' ? 'row' : 'column';
  return { major, minor };
}

// On-disk bytes per stored array against the plain bytes of its values (u32 index, val in its
// dtype, both with BPCells' 8-byte array header).
function arrayRows(matrix, sizes) {
  const nnz = matrix.nnz;
  const groups = [
    ['index', 4, /^index/],
    ['val', ELEM_BYTES[matrix.dtype] ?? 4, /^val/],
    ['idxptr', matrix.format === 1 ? 4 : 8, /^idxptr$/],
  ];
  return groups.map(([name, elem, pattern]) => {
    const files = Object.keys(sizes).filter((f) => pattern.test(f));
    const stored = files.reduce((s, f) => s + sizes[f], 0);
    const count = name === 'idxptr' ? matrix.major + 1 : nnz;
    const plain = 8 + count * elem;
    // (an HDF5 group stores its arrays as datasets, a directory as files)
    const unit = matrix.group ? 'dataset' : 'file';
    const label = el('span', { title: files.join(', ') }, name, el('span', { class: 'muted small' }, ` ${files.length} ${plural(files.length, unit, `${unit}s`)}`));
    return [label, formatBytes(stored), formatBytes(plain), stored ? `${(plain / stored).toFixed(2)}×` : '–'];
  });
}

function showNames(label, names, limit = 12) {
  if (!names.length) return el('div', { class: 'names' }, el('span', { class: 'muted' }, `no ${label} names`));
  const shown = names.slice(0, limit).join(', ');
  return el('div', { class: 'names' }, el('strong', {}, `${label} names (${formatInt(names.length)}): `), shown, names.length > limit ? ', …' : '');
}

// A chooser above the matrix view: resolves with the group picked (first one preselected).
function chooseGroup(groups) {
  return new Promise((resolve) => {
    const select = el(
      'select',
      { id: 'bp-group', 'aria-label': 'matrix group' },
      groups.map((g) => el('option', { value: g.group }, g.error ? `${g.group} (damaged: ${g.error})` : `${g.group}: ${g.version}, ${formatInt(g.shape[0])} × ${formatInt(g.shape[1])}, ${formatInt(g.nnz)} non-zeros`)),
    );
    const form = el('form', { id: 'bp-groups', class: 'row' }, el('label', {}, `This file holds ${groups.length} BPCells matrices: `, select), el('button', { type: 'submit' }, 'Open'));
    form.addEventListener('submit', (e) => {
      e.preventDefault();
      form.remove();
      resolve(select.value);
    });
    $('bp-body').before(form);
  });
}

/**
 * Opens `source` with bpcells.open(); an HDF5 file holding several matrix groups first shows
 * a chooser (bpcells.list()).
 */
export async function openBpcells(bpcells, source, setStage) {
  document.getElementById('bp-groups')?.remove();
  try {
    return await bpcells.open(source);
  } catch (err) {
    if (!/holds \d+ BPCells matrices/.test(err?.message ?? '')) throw err;
    setStage?.('listing the matrix groups');
    const groups = await bpcells.list(source);
    setStage?.('choose a matrix group');
    const group = await chooseGroup(groups);
    setStage?.(`opening ${group}`);
    return bpcells.open(source, { group });
  }
}

/**
 * @param {{name: string, matrix: object, setStage?: Function, roundTrips?: (() => number) | null}} options
 *   roundTrips: counts the round trips of the matrix's requests (lib/round-trips.js), null for local data
 */
export async function renderBpcells({ name, matrix, setStage, roundTrips = null }) {
  if (current?.timer) clearInterval(current.timer);
  if (current && current.matrix !== matrix) current.matrix.close?.(); // an HDF5 file handle
  current = { matrix, roundTrips, name: name.replace(/\.[^.]*$/, '').replace(/[^\w.-]+/g, '_'), rowNames: [], colNames: [], timer: setInterval(updateCounter, 250) };
  // Nothing of the previous matrix may remain on show: its block, its readout.
  heat = null;
  resetHeatReadout();
  const { major } = axisNames(matrix);
  $('bp-title').textContent = `BPCells: ${name}${matrix.group ? ` (HDF5 group ${matrix.group})` : ''}`;
  const [nrow, ncol] = matrix.shape;
  const cells = nrow * ncol;
  fillKv($('bp-summary'), [
    ['version', matrix.version, 'version'],
    ['shape', `${formatInt(nrow)} rows × ${formatInt(ncol)} columns`, 'shape'],
    ['storage order', `${matrix.storageOrder === 'col' ? 'by column (CSC)' : 'by row (CSR)'}`, 'order'],
    ['non-zeros', formatInt(matrix.nnz), 'nnz'],
    ['density', cells ? `${((100 * matrix.nnz) / cells).toPrecision(3)} %` : '–'],
    ['value type', matrix.dtype, 'dtype'],
  ]);

  setStage?.('reading file sizes and names');
  const [sizes, rowNames, colNames] = await Promise.all([matrix.fileSizes(), matrix.rowNames(), matrix.colNames()]);
  current.rowNames = rowNames;
  current.colNames = colNames;
  fillGrid($('bp-arrays'), ['array', 'stored', 'as plain array', 'ratio'], arrayRows(matrix, sizes));
  $('bp-names').replaceChildren(showNames('row', rowNames), showNames('column', colNames));

  const majorNames = matrix.storageOrder === 'col' ? colNames : rowNames;
  $('bp-name-list').replaceChildren(...majorNames.slice(0, 5000).map((n) => el('option', { value: n })));
  $('bp-pick-title').textContent = `One ${major}`;
  $('bp-pick-label').textContent = `${major[0].toUpperCase()}${major.slice(1)} (0 to ${matrix.major - 1})`;
  $('bp-pick-index').max = String(Math.max(0, matrix.major - 1));
  $('bp-pick-index').value = '0';
  $('bp-pick-name').value = '';
  $('bp-pick-name').disabled = majorNames.length === 0;
  // The vector and block a link asks for (lib/view-state.js), else the first ones.
  const block = (toRestore('block') ?? '').split(',').map(Number);
  const [r0, rn, c0, cn] = block.length === 4 && block.every(Number.isInteger) ? block : [0, Math.min(nrow, 64) || 1, 0, Math.min(ncol, 128) || 1];
  Object.entries({ 'bp-r0': r0, 'bp-rn': rn, 'bp-c0': c0, 'bp-cn': cn }).forEach(([id, v]) => ($(id).value = String(v)));
  const vector = Number(toRestore('vector') ?? 0);
  const k = Number.isInteger(vector) && vector >= 0 && vector < matrix.major ? vector : 0;
  $('bp-pick-index').value = String(k);
  updateCounter();
  // A matrix without columns or rows has no vector or block: the previous matrix's go.
  if (matrix.major > 0) await showVector(k);
  else clearVector(`no ${major}s to show: the matrix is ${formatInt(nrow)} × ${formatInt(ncol)}`);
  if (nrow > 0 && ncol > 0) await showBlock();
  else clearBlock(`no block to show: the matrix is ${formatInt(nrow)} × ${formatInt(ncol)}`);
  updateCounter();
}

function clearVector(why) {
  $('bp-vector-summary').textContent = why;
  $('bp-vector-summary').dataset.nnz = '0';
  clearCanvas($('bp-vector'));
  redrawOnThemeChange($('bp-vector'), () => {});
  $('bp-vector-table').replaceChildren();
}

function clearBlock(why) {
  heat = null;
  $('bp-heat-summary').textContent = why;
  Object.assign($('bp-heat-summary').dataset, { nonzero: '0', scale: '' });
  clearCanvas($('bp-heatmap'));
  clearCanvas($('bp-colorbar'));
}

/** Reads major position k (column k of a column-major matrix) and shows its entries. */
export async function showVector(k) {
  const { matrix } = current;
  const { major, minor } = axisNames(matrix);
  if (!(Number.isInteger(k) && k >= 0 && k < matrix.major)) {
    throw new Error(`${major} ${k} is outside the matrix (0 to ${matrix.major - 1})`);
  }
  const before = { ...matrix.stats };
  const { index, val } = await matrix.read(k, k + 1);
  const minorNames = matrix.storageOrder === 'col' ? current.rowNames : current.colNames;
  const majorNames = matrix.storageOrder === 'col' ? current.colNames : current.rowNames;
  const label = majorNames[k] ? `${major} ${k} (${majorNames[k]})` : `${major} ${k}`;
  let sum = 0;
  for (const v of val) sum += Number(v);
  $('bp-vector-summary').dataset.nnz = String(index.length);
  $('bp-vector-summary').textContent =
    `${label}: ${nonZeros(index.length)} of ${formatInt(matrix.minor)} ${minor}s, sum ${formatSum(sum, matrix.dtype)}; ` +
    `read with ${counted(matrix.stats.requests - before.requests, 'request')}, ${formatBytes(matrix.stats.bytes - before.bytes)}`;
  const stems = () => drawStems($('bp-vector'), matrix.minor, index, val, { xName: `${minor} index`, yName: `value (${matrix.dtype})` });
  stems();
  redrawOnThemeChange($('bp-vector'), stems);
  const rows = [];
  for (let p = 0; p < index.length && p < MAX_VECTOR_ROWS; p++) {
    rows.push([index[p], minorNames[index[p]] ?? '', formatValue(matrix.dtype, val[p])]);
  }
  fillGrid($('bp-vector-table'), [minor, 'name', 'value'], rows);
  updateView({ vector: k });
  if (index.length > MAX_VECTOR_ROWS) $('bp-vector-table').createCaption().textContent = `first ${MAX_VECTOR_ROWS} of ${index.length}`;
  updateCounter();
}

export function findByName(name) {
  const { matrix } = current;
  const names = matrix.storageOrder === 'col' ? current.colNames : current.rowNames;
  const k = names.indexOf(name);
  if (k < 0) throw new Error(`no ${axisNames(matrix).major} is named ${JSON.stringify(name)}`);
  return k;
}

function readBlockInputs(matrix) {
  const [nrow, ncol] = matrix.shape;
  const num = (id, lo, hi) => Math.max(lo, Math.min(hi, Math.floor(Number($(id).value) || 0)));
  const r0 = num('bp-r0', 0, Math.max(0, nrow - 1));
  const c0 = num('bp-c0', 0, Math.max(0, ncol - 1));
  const rn = num('bp-rn', 1, Math.min(MAX_BLOCK, nrow - r0));
  const cn = num('bp-cn', 1, Math.min(MAX_BLOCK, ncol - c0));
  return { r0, c0, rn, cn };
}

let heat = null; // the block on show, for the pointer readout
let restingPointer = () => null; // where a mouse rests on the heatmap, to read the new block there

const HEAT_HINT = 'Point at a cell (or tap it) to read its value.';

function resetHeatReadout() {
  const readout = $('bp-heat-readout');
  readout.textContent = HEAT_HINT;
  delete readout.dataset.value;
}

// The readout for the cell under a pointer: row and column with their names, and the exact value.
// False when no cell is there.
function readCell(point) {
  if (!heat) return false;
  const at = heatmapCellAt($('bp-heatmap'), heat.geometry, heat.rn, heat.cn, point);
  if (!at) return false;
  const { r, c } = at;
  const rowName = current?.rowNames[heat.r0 + r];
  const colName = current?.colNames[heat.c0 + c];
  const value = formatValue(current.matrix.dtype, heat.values[r * heat.cn + c]);
  const readout = $('bp-heat-readout');
  readout.textContent = `row ${heat.r0 + r}${rowName ? ` (${rowName})` : ''}, column ${heat.c0 + c}${colName ? ` (${colName})` : ''}: ${value}`;
  readout.dataset.value = value;
  return true;
}

function wireHeatmap(canvas) {
  if (canvas.dataset.wired) return;
  canvas.dataset.wired = 'yes';
  restingPointer = followPointer(canvas, readCell); // a tap reads too
  $('bp-csv').addEventListener('click', () => saveBlock('csv'));
  $('bp-npy').addEventListener('click', () => saveBlock('npy'));
  redrawOnThemeChange(canvas, () => heat && drawBlock());
}

// An axis of the block: named by the matrix's names when it has them, else by index.
function blockAxis(label, names, first) {
  return {
    name: names.length ? `${label} (name)` : `${label} (index)`,
    label: (i) => names[first + i] ?? String(first + i),
  };
}

function drawBlock() {
  const { r0, c0, rn, cn, grid, scale } = heat;
  const canvas = $('bp-heatmap');
  heat.geometry = drawHeatmap(canvas, {
    rows: rn, cols: cn, values: grid, scale, square: false,
    x: blockAxis('column', current.colNames, c0),
    y: blockAxis('row', current.rowNames, r0),
  });
  drawColorBar($('bp-colorbar'), scale, { title: `value (${current.matrix.dtype})` });
  const g = heat.geometry;
  // Cell geometry for scripts that point at a cell (the end-to-end tests).
  Object.assign(canvas.dataset, { left: String(g.left), top: String(g.top), cellWidth: String(g.cellWidth), cellHeight: String(g.cellHeight) });
}

/** Draws rows [r0, r0+rn) x columns [c0, c0+cn): fetches only the major positions of the block. */
export async function showBlock() {
  const { matrix } = current;
  const { r0, c0, rn, cn } = readBlockInputs(matrix);
  const col = matrix.storageOrder === 'col';
  const before = { ...matrix.stats };
  const start = col ? c0 : r0;
  const count = col ? cn : rn;
  const { idxptr, index, val } = await matrix.read(start, start + count);
  // Scatter the sparse entries that fall inside the block into a dense rn x cn block of the
  // matrix's own type (exact values for the readout and the downloads) and a copy as doubles.
  const values = new val.constructor(rn * cn);
  let nonzero = 0;
  for (let m = 0; m < count; m++) {
    for (let p = idxptr[m]; p < idxptr[m + 1]; p++) {
      const r = col ? index[p] - r0 : m;
      const c = col ? m : index[p] - c0;
      if (r < 0 || r >= rn || c < 0 || c >= cn) continue;
      values[r * cn + c] = val[p];
      nonzero++;
    }
  }
  const grid = Float64Array.from(values);
  // The block's own range (zero only when a cell of it is zero) for the summary; the scale
  // always reaches zero.
  let lo = Infinity;
  let hi = -Infinity;
  for (const v of grid) {
    if (v < lo) lo = v;
    if (v > hi) hi = v;
  }
  // Sparse: counts on a log scale with zero as the background; signed values diverge from zero.
  const scale = colorScale(Math.min(lo, 0), Math.max(hi, 0), { sparse: true });
  heat = { r0, c0, rn, cn, values, grid, scale };
  wireHeatmap($('bp-heatmap'));
  $('bp-heatmap').style.height = `${Math.max(220, Math.min(520, rn * 8 + 60))}px`;
  drawBlock();
  const pointer = restingPointer();
  if (!(pointer && readCell(pointer))) resetHeatReadout();
  $('bp-heat-summary').textContent =
    `rows ${r0} to ${r0 + rn - 1}, columns ${c0} to ${c0 + cn - 1}: ${nonZeros(nonzero)}, from ${formatValue(matrix.dtype, lo)} to ${formatValue(matrix.dtype, hi)}; ` +
    `${scale.describe}. Read with ${counted(matrix.stats.requests - before.requests, 'request')}, ${formatBytes(matrix.stats.bytes - before.bytes)}.`;
  Object.assign($('bp-heat-summary').dataset, { nonzero: String(nonzero), scale: scale.kind });
  updateView({ block: [r0, rn, c0, cn].join(',') });
  updateCounter();
}

// The block on show as a file: CSV with the row and column names (or indices), or NumPy .npy.
function saveBlock(kind) {
  if (!heat) return;
  const { r0, c0, rn, cn, values } = heat;
  const base = `${current.name}-rows${r0}-${r0 + rn - 1}-cols${c0}-${c0 + cn - 1}`;
  if (kind === 'npy') {
    download(npyBlob(values, [rn, cn]), `${base}.npy`);
    return;
  }
  const rowName = (r) => current.rowNames[r0 + r] ?? String(r0 + r);
  const header = ['row', ...Array.from({ length: cn }, (_, c) => current.colNames[c0 + c] ?? String(c0 + c))];
  const text = (v) => formatValue(current.matrix.dtype, v);
  download(csvBlob({ header, rowNames: rowName, rows: rn, cols: cn, cell: (r, c) => text(values[r * cn + c]) }), `${base}.csv`);
}

export function stopBpcells() {
  if (current?.timer) clearInterval(current.timer);
  current?.matrix?.close?.();
  current = null;
}
