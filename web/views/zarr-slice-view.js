// The drawn slice of the Zarr view: one dimension as the line plot, two as a heatmap, each with
// axes in the data's own coordinates and units (lib/coords.js), a full-width colour bar, cells not
// stored hatched, and a readout that always speaks of the data on show: after a new slice it reads
// the cell under the resting pointer again, or says to point. A mouse click on the heatmap opens the
// chunk in the Pco view; a tap (touch) shows the value and offers the chunk through the chunk form.
// Also the slice's downloads: CSV and NumPy .npy.
import { $, el, download } from '../lib/dom.js';
import { LinePlot } from '../lib/plot.js';
import { colorScale, drawColorBar, drawHeatmap, finiteRange, fitHeatmapHeight, followPointer, heatmapCellAt } from '../lib/heatmap.js';
import { coordinatePaths, coordinateTicks, quantity } from '../lib/coords.js';
import { notStoredCells } from '../lib/missing-chunks.js';
import { npyBlob } from '../lib/npy.js';
import { redrawOnThemeChange } from '../lib/theme.js';
import { csvBlob } from '../lib/csv.js';
import { parseViewText, toRestore, updateView, viewText } from '../lib/view-state.js';
import { valueFormatter, valueNumber } from '../../js/zarr-explore/format.js';
import { parseSlice, sliceText } from '../../js/zarr-explore/slice.js';

let shown = null; // the slice on show: {a, parsed, got, xDim, yDim, ...}
let plot = null;
let restingPointer = () => null; // where a mouse rests on the heatmap
let hooks = null; // {openChunk(coords), run(title, action)}

const HEAT_HINT = 'Point at a cell to read its value (tap on a touch screen); a click opens its chunk in the Pco view.';

/** The elements of the drawn slice, for the view's skeleton. */
export function sliceElements() {
  return [
    el('div', { id: 'zarr-line-box', hidden: true },
      el('div', { class: 'plot-tools' }, el('span', { id: 'zarr-line-readout', class: 'readout', 'aria-live': 'off' })),
      el('canvas', { id: 'zarr-line', class: 'chart', tabindex: 0, role: 'img', 'aria-label': 'line plot of the slice; + and - zoom, arrow keys pan, 0 resets' })),
    el('div', { id: 'zarr-heat-box', hidden: true },
      el('canvas', { id: 'zarr-heatmap', class: 'chart tall', role: 'img', 'aria-label': 'heatmap of the slice; point at or tap a cell to read its value' }),
      el('canvas', { id: 'zarr-colorbar', class: 'colorbar', role: 'img', 'aria-label': 'colour bar' }),
      el('p', { id: 'zarr-legend', class: 'legend muted small' }),
      el('p', { id: 'zarr-heat-readout', class: 'readout-line', 'aria-live': 'polite' }, HEAT_HINT)),
    el('div', { class: 'row', id: 'zarr-downloads' },
      el('button', { type: 'button', id: 'zarr-csv' }, 'Download slice .csv'),
      el('button', { type: 'button', id: 'zarr-npy' }, 'Download slice .npy'),
      el('span', { class: 'muted small' }, '.npy opens with numpy.load(); both hold the slice as read, in the array\'s dimension order')),
  ];
}

/** Wires the slice elements (after the skeleton is on the page). */
export function wireSlice(options) {
  hooks = options;
  shown = null;
  plot = new LinePlot($('zarr-line'), $('zarr-line-readout'));
  const canvas = $('zarr-heatmap');
  restingPointer = followPointer(canvas, readCell, (e) => {
    const cell = readCell(e);
    if (!cell) return;
    $('zarr-chunk').value = cell.chunk.join(',');
    // A mouse opens the chunk at once; a finger only reads (it has no hover): the form below opens it.
    if (e.pointerType === 'mouse') hooks.run('Could not open the chunk', () => hooks.openChunk(cell.chunk));
    else $('zarr-chunk-note').textContent = `chunk ${cell.chunk.join(',')} chosen: "Open in the Pco view" opens it`;
  });
  $('zarr-csv').addEventListener('click', () => saveSlice('csv'));
  $('zarr-npy').addEventListener('click', () => saveSlice('npy'));
  redrawOnThemeChange(canvas, () => shown?.yDim >= 0 && drawHeat());
}

/** Forgets the slice on show (another array, or an error). */
export function clearSlice() {
  shown = null;
  if ($('zarr-heat-readout')) resetReadout();
  $('zarr-line-box')?.setAttribute('hidden', '');
  $('zarr-heat-box')?.setAttribute('hidden', '');
  const row = $('zarr-downloads');
  if (row) row.hidden = true;
}

function resetReadout() {
  const readout = $('zarr-heat-readout');
  readout.textContent = HEAT_HINT;
  for (const k of Object.keys(readout.dataset)) delete readout.dataset[k];
}

const ROLES = new Set(['x', 'y', 'index']);

/**
 * Applies the slice and roles a link asks for (?array=…&slice=5,:,:&roles=index,y,x) to the view's
 * array state `a` (roles, index, from, count), when the link names this array; a slice that does
 * not fit the array is ignored.
 */
export function restoreSlice(a) {
  if (toRestore('array') === undefined || `/${toRestore('array').replace(/^\/+/, '')}` !== a.path) return;
  const roles = (toRestore('roles') ?? '').split(',');
  if (roles.length === a.roles.length && roles.every((r) => ROLES.has(r)) && roles.filter((r) => r === 'x').length === 1 && roles.filter((r) => r === 'y').length <= 1) {
    a.roles = roles;
  }
  let parsed;
  try {
    parsed = parseSlice(toRestore('slice'), a.array.shape);
  } catch {
    return;
  }
  parsed.forEach((p, d) => {
    if (p.index !== undefined) a.index[d] = p.index;
    else if (p.step === 1) {
      a.from[d] = p.start;
      a.count[d] = Math.max(1, p.stop - p.start);
    }
  });
}

/**
 * Reads the coordinate arrays of an array's dimensions (1-D arrays named like the dimensions).
 * @param {(path: string) => Promise<{values: ArrayLike<any>, dataType: string, float16Bits: boolean}>} readWhole
 * @returns {Promise<Array<{dim: string, path: string, values: ArrayLike<any>, q: ReturnType<typeof quantity>} | null>>}
 */
export async function loadCoordinates(readWhole, description, nodes) {
  const paths = coordinatePaths(description, nodes);
  return Promise.all(paths.map(async (c) => {
    if (!c) return null;
    try {
      const got = await readWhole(c.path);
      const node = nodes.find((n) => n.path === c.path);
      const number = valueNumber(got.dataType, got.float16Bits);
      // Times keep their integers (BigInt) exact; other coordinates become numbers.
      const values = got.values instanceof BigInt64Array || got.values instanceof BigUint64Array ? got.values : Array.from(got.values, number);
      return { ...c, values, q: quantity({ name: c.dim, attributes: node.description.attributes, exactText: valueFormatter(got.dataType, got.float16Bits) }) };
    } catch {
      return null; // an unreadable coordinate leaves that axis in indices
    }
  }));
}

// How dimension d reads: its name, and the text of index i along it.
function dimAxis(s, d) {
  const coord = s.coords[d];
  const dimName = s.a.description.dimensionNames?.[d] ?? `dim ${d}`;
  if (coord) {
    const p = s.parsed[d];
    const ticks = (count) => coordinateTicks(coord.values, p.start, p.stop, count)?.map((i) => i - p.start) ?? null;
    return { name: coord.q.name, tick: (i) => coord.q.tick(coord.values[i]), exact: (i) => coord.q.exact(coord.values[i]), ticks, dimName };
  }
  return { name: `${dimName} (index)`, tick: (i) => String(i), exact: (i) => String(i), ticks: () => null, dimName };
}

/**
 * Shows a read slice.
 * @param {{a: object, parsed: object[], got: {values: ArrayLike<any>, shape: number[], dataType: string, float16Bits: boolean},
 *   coords: Array<object|null>, missing: Set<string>}} slice a: the view's array state (path, array, description, roles)
 */
export function showSlice({ a, parsed, got, coords, missing }) {
  const xDim = a.roles.indexOf('x');
  const yDim = a.roles.indexOf('y');
  const text = valueFormatter(got.dataType, got.float16Bits);
  const q = quantity({ name: a.path.slice(a.path.lastIndexOf('/') + 1), attributes: a.description.attributes, exactText: text });
  const toNumber = valueNumber(got.dataType, got.float16Bits);
  const numbers = Float64Array.from(got.values, (v) => toNumber(v));
  shown = { a, parsed, got, coords, missing, xDim, yDim, text, q, numbers };
  $('zarr-downloads').hidden = false;
  // The address bar holds the slice on show (a copied link restores it).
  updateView({ array: a.path, slice: sliceText(parsed, a.array.shape), roles: a.roles.join(','), view: null });
  if (yDim < 0) {
    $('zarr-heat-box').hidden = true;
    $('zarr-line-box').hidden = false;
    showLine();
  } else {
    $('zarr-line-box').hidden = true;
    $('zarr-heat-box').hidden = false;
    showHeat();
  }
}

// The array index (all dimensions) of position k along the plotted dimension.
function lineIndex(s, k) {
  return s.parsed.map((p, d) => (d === s.xDim ? p.start + k : p.index));
}

function showLine() {
  const s = shown;
  const x = dimAxis(s, s.xDim);
  const start = s.parsed[s.xDim].start;
  const fixedText = (index) => s.parsed.map((p, d) => (d === s.xDim || !s.coords[d] ? null : `${dimAxis(s, d).dimName} ${dimAxis(s, d).exact(index[d])}`)).filter(Boolean);
  plot.setData(s.numbers, {
    onView: (view) => updateView({ view: viewText(view, s.numbers.length) }),
    xName: x.name,
    yName: s.q.name,
    xLabel: (i) => x.tick(start + Math.round(i)),
    yLabel: (v) => s.q.tick(v),
    exactValue: (k) => s.text(s.got.values[k]),
    pointText: (k) => {
      const index = lineIndex(s, k);
      const where = [s.coords[s.xDim] ? `${x.dimName} ${x.exact(start + k)}` : null, ...fixedText(index)].filter(Boolean);
      return `${s.a.path.slice(1)}[${index.join(', ')}] = ${s.q.exact(s.got.values[k])}${where.length ? ` at ${where.join(', ')}` : ''}`;
    },
  });
  const zoom = parseViewText(toRestore('view'));
  if (zoom) plot.setView(zoom[0], zoom[1]);
}

function showHeat() {
  const s = shown;
  const [ny, nx] = [s.parsed[s.yDim].stop - s.parsed[s.yDim].start, s.parsed[s.xDim].stop - s.parsed[s.xDim].start];
  // The result keeps the array's dimension order: rows are y unless y comes after x.
  s.ny = ny;
  s.nx = nx;
  s.grid = s.yDim < s.xDim ? s.numbers : transposed(s.numbers, nx, ny);
  s.notStored = notStoredCells(s.a.description, s.parsed, s.yDim, s.xDim, { rows: ny, cols: nx }, s.missing);
  const range = finiteRange(s.grid) ?? [0, 1];
  s.scale = colorScale(range[0], range[1]);
  fitHeatmapHeight($('zarr-heatmap'), ny, nx, { min: 140, max: 480 });
  drawHeat();
  // NaN stored in the data, apart from the cells that only read as a NaN fill value.
  let nan = false;
  for (let i = 0; i < s.grid.length && !nan; i++) nan = Number.isNaN(s.grid[i]) && !s.notStored?.(Math.floor(i / nx), i % nx);
  const fill = JSON.stringify(s.a.description.fillValue);
  const legend = $('zarr-legend');
  legend.replaceChildren(
    `Colours: ${s.scale.describe}.`,
    nan ? el('span', { class: 'key' }, el('span', { class: 'swatch nan' }), 'NaN (stored)') : '',
    s.notStored ? el('span', { class: 'key' }, el('span', { class: 'swatch hatched' }), `not stored: reads as the fill value ${fill}`) : '',
  );
  legend.dataset.scale = s.scale.kind;
  legend.dataset.notStored = s.notStored ? 'yes' : '';
  // The readout speaks of this slice: the cell under a resting pointer, else the hint.
  const pointer = restingPointer();
  if (!(pointer && readCell(pointer))) resetReadout();
}

function drawHeat() {
  const s = shown;
  const canvas = $('zarr-heatmap');
  const x = dimAxis(s, s.xDim);
  const y = dimAxis(s, s.yDim);
  const [x0, y0] = [s.parsed[s.xDim].start, s.parsed[s.yDim].start];
  s.geometry = drawHeatmap(canvas, {
    rows: s.ny, cols: s.nx, values: s.grid, scale: s.scale, notStored: s.notStored,
    x: { name: x.name, label: (c) => x.tick(x0 + c), ticks: x.ticks },
    y: { name: y.name, label: (r) => y.tick(y0 + r), ticks: y.ticks },
  });
  drawColorBar($('zarr-colorbar'), s.scale, { title: s.q.name, label: (v) => s.q.tick(v) });
  const g = s.geometry;
  Object.assign(canvas.dataset, { left: String(g.left), top: String(g.top), cellWidth: String(g.cellWidth), cellHeight: String(g.cellHeight), rows: String(s.ny), cols: String(s.nx) });
}

function transposed(numbers, rows, cols) {
  const out = new Float64Array(numbers.length);
  for (let r = 0; r < rows; r++) for (let c = 0; c < cols; c++) out[c * rows + r] = numbers[r * cols + c];
  return out;
}

// Reads the heatmap cell under a pointer into the readout; returns {index, chunk} or null.
function readCell(point) {
  const s = shown;
  if (!s?.geometry || s.yDim < 0) return null;
  const at = heatmapCellAt($('zarr-heatmap'), s.geometry, s.ny, s.nx, point);
  if (!at) return null;
  const { r, c } = at;
  const index = s.parsed.map((p, d) => (d === s.yDim ? p.start + r : d === s.xDim ? p.start + c : p.index));
  const flat = s.yDim < s.xDim ? r * s.nx + c : c * s.ny + r;
  const raw = s.got.values[flat];
  const chunkShape = s.a.array.chunks;
  const chunk = index.map((i, d) => Math.floor(i / chunkShape[d]));
  const notStored = Boolean(s.notStored?.(r, c));
  const where = index.map((i, d) => (s.coords[d] ? `${dimAxis(s, d).dimName} ${dimAxis(s, d).exact(i)}` : null)).filter(Boolean);
  const readout = $('zarr-heat-readout');
  readout.textContent = `${s.a.path.slice(1)}[${index.join(', ')}] = ${s.q.exact(raw)}${notStored ? ' (not stored: the fill value)' : ''}` +
    `${where.length ? ` at ${where.join(', ')}` : ''}; chunk ${chunk.join(',')}`;
  Object.assign(readout.dataset, {
    index: index.join(','),
    value: s.text(raw),
    notStored: notStored ? 'yes' : '',
    coords: JSON.stringify(index.map((i, d) => (s.coords[d] ? s.coords[d].q.raw(s.coords[d].values[i]) : null))),
  });
  return { index, chunk };
}

function saveSlice(kind) {
  const s = shown;
  if (!s) return;
  const name = `${s.a.path.slice(1).replace(/\//g, '-')}[${s.parsed.map((p) => (p.index ?? `${p.start}-${p.stop}`)).join(',')}]`;
  const { values, shape, dataType, float16Bits } = s.got;
  if (kind === 'npy') download(npyBlob(values, shape, { float16Bits }), `${name}.npy`);
  else {
    // Rows of the last dimension, in C order (a 1-D slice: one value a line).
    const cols = shape.length >= 2 ? shape[shape.length - 1] : 1;
    const text = valueFormatter(dataType, float16Bits);
    download(csvBlob({ rows: cols ? values.length / cols : 0, cols, cell: (r, c) => text(values[r * cols + c]) }), `${name}.csv`);
  }
}
