// BPCells view: a matrix directory or HDF5 matrix group opened lazily with bpcells.open(); a
// group chooser when an HDF5 file holds several matrices. Shows its facts and the
// size of each array file against the plain size of what it stores, one column (or row) at a
// time, and a heatmap of a block. Only the byte ranges needed are fetched; the counter shows
// the requests and bytes so far.
import { $, el, fillGrid, fillKv, formatBytes, formatInt } from '../lib/dom.js';
import { drawHeatmap, drawStems } from '../lib/plot.js';

const MAX_VECTOR_ROWS = 500;
const MAX_BLOCK = 400;
const ELEM_BYTES = { u32: 4, f32: 4, f64: 8 };

let current = null; // {matrix, rowNames, colNames, timer}

function updateCounter() {
  if (!current) return;
  const { requests, bytes } = current.matrix.stats;
  $('bp-requests').textContent = formatInt(requests);
  $('bp-bytes').textContent = formatBytes(bytes);
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
    const label = el('span', { title: files.join(', ') }, name, el('span', { class: 'muted small' }, ` ${files.length} file${files.length === 1 ? '' : 's'}`));
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

export async function renderBpcells({ name, matrix, setStage }) {
  if (current?.timer) clearInterval(current.timer);
  if (current && current.matrix !== matrix) current.matrix.close?.(); // an HDF5 file handle
  current = { matrix, rowNames: [], colNames: [], timer: setInterval(updateCounter, 250) };
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
  $('bp-r0').value = '0';
  $('bp-c0').value = '0';
  $('bp-rn').value = String(Math.min(nrow, 64) || 1);
  $('bp-cn').value = String(Math.min(ncol, 128) || 1);
  updateCounter();
  if (matrix.major > 0) await showVector(0);
  if (nrow > 0 && ncol > 0) await showBlock();
  updateCounter();
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
    `${label}: ${formatInt(index.length)} non-zeros of ${formatInt(matrix.minor)} ${minor}s, sum ${sum.toPrecision(8).replace(/\.?0+$/, '')}; ` +
    `read with ${matrix.stats.requests - before.requests} requests, ${formatBytes(matrix.stats.bytes - before.bytes)}`;
  drawStems($('bp-vector'), matrix.minor, index, val);
  const rows = [];
  for (let p = 0; p < index.length && p < MAX_VECTOR_ROWS; p++) {
    rows.push([index[p], minorNames[index[p]] ?? '', String(val[p])]);
  }
  fillGrid($('bp-vector-table'), [minor, 'name', 'value'], rows);
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

function wireHeatmap(canvas) {
  if (canvas.dataset.wired) return;
  canvas.dataset.wired = 'yes';
  canvas.addEventListener('pointermove', (e) => {
    if (!heat) return;
    const rect = canvas.getBoundingClientRect();
    // The image starts one pixel in (inside its frame) and each pixel covers whole cells.
    const x = e.clientX - rect.left - 1;
    const y = e.clientY - rect.top - 1;
    if (x < 0 || y < 0 || x >= heat.w || y >= heat.h) return;
    const r = Math.floor((y / heat.h) * heat.rn);
    const c = Math.floor((x / heat.w) * heat.cn);
    const rowName = current?.rowNames[heat.r0 + r];
    const colName = current?.colNames[heat.c0 + c];
    $('bp-heat-readout').textContent =
      `row ${heat.r0 + r}${rowName ? ` (${rowName})` : ''}, column ${heat.c0 + c}${colName ? ` (${colName})` : ''}: ${heat.block[r * heat.cn + c]}`;
  });
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
  // Scatter the sparse entries that fall inside the block into a dense rn x cn grid.
  const block = new Float64Array(rn * cn);
  let nonzero = 0;
  for (let m = 0; m < count; m++) {
    for (let p = idxptr[m]; p < idxptr[m + 1]; p++) {
      const r = col ? index[p] - r0 : m;
      const c = col ? m : index[p] - c0;
      if (r < 0 || r >= rn || c < 0 || c >= cn) continue;
      block[r * cn + c] += Number(val[p]);
      nonzero++;
    }
  }
  const { max, w, h } = drawHeatmap($('bp-heatmap'), rn, cn, block);
  heat = { r0, c0, rn, cn, block, w, h };
  // Cell geometry for scripts that point at a cell (the end-to-end tests).
  Object.assign($('bp-heatmap').dataset, { cellWidth: String(w / cn), cellHeight: String(h / rn) });
  wireHeatmap($('bp-heatmap'));
  $('bp-heat-summary').textContent =
    `rows ${r0} to ${r0 + rn - 1}, columns ${c0} to ${c0 + cn - 1}: ${formatInt(nonzero)} non-zeros, max ${max}; ` +
    `colour is log(1 + value), white is zero. Read with ${matrix.stats.requests - before.requests} requests, ${formatBytes(matrix.stats.bytes - before.bytes)}.`;
  $('bp-heat-summary').dataset.nonzero = String(nonzero);
  updateCounter();
}

export function stopBpcells() {
  if (current?.timer) clearInterval(current.timer);
  current?.matrix?.close?.();
  current = null;
}
