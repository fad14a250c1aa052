// ALP view: page header and per-vector metadata from alp.inspect(), bits per value across
// vectors, and the decoded values with the exceptions marked.
import { $, fillGrid, fillKv, formatBytes, formatInt } from '../lib/dom.js';
import { drawBars, barAt, barColors } from '../lib/plot.js';
import { redrawOnThemeChange } from '../lib/theme.js';
import { renderValuesPanel } from './values-panel.js';

// More rows than this make the page slow to lay out; the bar chart shows every vector.
const MAX_TABLE_ROWS = 256;

let current = null; // {vectors, bitsPerValue, selected, plot} of the page on show

function drawBitsChart() {
  if (!current) return;
  const { vectors, bitsPerValue, selected } = current;
  const bar = barColors();
  drawBars($('alp-bits'), bitsPerValue, {
    xRange: [0, vectors.length],
    colorOf: (i) => (i === selected ? bar.selected : vectors[i].exceptions ? bar.alt : bar.normal),
    xName: 'vector',
    yName: 'bits per value',
    integerX: true,
  });
}

/** Shows vector k: its facts under the chart and its values in the plot. */
function selectVector(k) {
  const { vectors, bitsPerValue } = current;
  if (!vectors.length) return;
  k = Math.max(0, Math.min(vectors.length - 1, k));
  current.selected = k;
  const v = vectors[k];
  $('alp-bits-readout').textContent =
    `vector ${v.index}: values ${v.firstValue} to ${v.firstValue + v.numValues - 1}, exponent ${v.exponent}, factor ${v.factor}, ` +
    `bit width ${v.bitWidth}, ${v.exceptions} exception${v.exceptions === 1 ? '' : 's'}, ${bitsPerValue[k].toFixed(2)} bits/value`;
  current.plot?.setView(v.firstValue, v.firstValue + v.numValues);
  drawBitsChart();
}

function wireBarChart(canvas) {
  if (canvas.dataset.wired) return;
  canvas.dataset.wired = 'yes';
  canvas.addEventListener('click', (e) => {
    const k = barAt(canvas, e.clientX, current?.vectors.length ?? 0);
    if (k >= 0) selectVector(k);
  });
  canvas.addEventListener('keydown', (e) => {
    if (!current) return;
    const step = { ArrowLeft: -1, ArrowRight: 1, Home: -Infinity, End: Infinity }[e.key];
    if (step === undefined) return;
    e.preventDefault();
    const from = current.selected < 0 ? (step > 0 ? -1 : current.vectors.length) : current.selected;
    selectVector(Number.isFinite(step) ? from + step : step < 0 ? 0 : current.vectors.length - 1);
  });
}

export function renderAlp({ name, bytes, result, requestCsv }) {
  const { info, exceptions } = result;
  const vectors = info.vectors.filter((v) => v.error === undefined);
  const totalExceptions = vectors.reduce((s, v) => s + v.exceptions, 0);
  $('alp-title').textContent = `ALP ${info.dtype}: ${name}`;
  fillKv($('alp-header'), [
    ['layout', info.layout === 'draft' ? `draft (version byte ${info.version})` : 'merged Parquet', 'layout'],
    ['header bytes', String(info.headerBytes)],
    ['compression mode', String(info.compressionMode)],
    ['integer encoding', String(info.integerEncoding)],
    ['vector size', `${formatInt(info.vectorSize)} (log ${info.logVectorSize})`, 'vector-size'],
    ['values', formatInt(info.numElements), 'num-elements'],
    ['vectors', formatInt(info.numVectors), 'num-vectors'],
    ['page size', formatBytes(info.pageBytes)],
    ['exceptions', formatInt(totalExceptions), 'exceptions'],
    ['bits per value', info.numElements ? ((info.pageBytes * 8) / info.numElements).toFixed(2) : '–', 'bits'],
  ]);

  const bitsPerValue = Float64Array.from(vectors, (v) => (v.numValues ? (v.bytes * 8) / v.numValues : 0));
  const canvas = $('alp-bits');
  current = { vectors, bitsPerValue, selected: -1, plot: null };
  $('alp-bits-readout').textContent = "Click a bar (or focus the chart and use ← →) to show that vector's values in the plot.";
  wireBarChart(canvas);
  drawBitsChart();
  // One observer for the page's lifetime, redrawing whatever page is shown.
  if (!canvas.dataset.observed) new ResizeObserver(drawBitsChart).observe(canvas);
  canvas.dataset.observed = 'yes';
  redrawOnThemeChange(canvas, drawBitsChart);

  const shown = vectors.slice(0, MAX_TABLE_ROWS);
  fillGrid(
    $('alp-vectors'),
    ['vector', 'first value', 'values', 'offset', 'bytes', 'exponent', 'factor', 'bit width', 'exceptions', 'frame of ref.', 'bits/value'],
    shown.map((v, i) => [
      v.index, formatInt(v.firstValue), formatInt(v.numValues), formatInt(v.offset), formatInt(v.bytes),
      v.exponent, v.factor, v.bitWidth, v.exceptions, String(v.frameOfReference), bitsPerValue[i].toFixed(2),
    ]),
    (i) => (shown[i].exceptions ? 'flag' : undefined),
  );
  $('alp-vectors-note').hidden = vectors.length <= shown.length;
  $('alp-vectors-note').textContent = `The first ${shown.length} of ${vectors.length} vectors (the chart above shows all).`;

  const found = exceptions.positions.length;
  const note = exceptions.mismatchedVectors.length
    ? ` ${found} values marked as exceptions; for ${exceptions.mismatchedVectors.length} vector(s) this differs from the count the page declares (the marks are found by re-checking each value against its vector's exponent and factor)`
    : ` exceptions (${found}, matching the page's per-vector counts)`;
  current.plot = renderValuesPanel($('alp-values'), result, {
    baseName: name.replace(/\.[^.]*$/, '') || 'values',
    requestCsv,
    markers: exceptions.positions,
    markerNote: note,
    extra: [
      ['page size', formatBytes(bytes.length), 'bytes'],
      ['bits per value', info.numElements ? ((bytes.length * 8) / info.numElements).toFixed(2) : '–', 'bits'],
      ['exceptions', formatInt(totalExceptions), 'exceptions'],
    ],
  });
}
