// The values half of the Pco, ALP and Parquet views: summary statistics, a zoomable line plot
// (with the chunk or page boundaries), a histogram, the first values and downloads. Filled from a
// decode-worker result.
import { el, download, formatInt } from '../lib/dom.js';
import { LinePlot, drawBars } from '../lib/plot.js';
import { redrawOnThemeChange } from '../lib/theme.js';
import { formatApprox, formatF32 } from '../lib/values.js';
import { parseViewText, toRestore, updateView, viewText } from '../lib/view-state.js';

// The exact text of a plotted value (the plot holds doubles: 64-bit integers past 2^53 are rounded, and say so).
function exactText(dtype, v) {
  if (dtype === 'f32') return formatF32(v);
  if ((dtype === 'i64' || dtype === 'u64') && Math.abs(v) > Number.MAX_SAFE_INTEGER) return `≈${formatApprox(v)}`;
  return Object.is(v, -0) ? '-0' : String(v);
}

// Where each part starts (after the first), from the parts' lengths.
function startsOf(lengths) {
  const out = new Float64Array(Math.max(0, lengths.length - 1));
  let at = 0;
  for (let i = 0; i + 1 < lengths.length; i++) out[i] = at += lengths[i];
  return out;
}

/**
 * @param {HTMLElement} container
 * @param {object} result worker result: stats, hist, plot, first, blob, decodeMs; valid (a Parquet
 *   column with nulls: 0 at its null rows, which the statistics leave out)
 * @param {{baseName: string, extra?: Array<[string, string, string]>, markers?: Uint32Array,
 *   markerNote?: string, requestCsv: () => Promise<Blob>, parts?: {name: string, lengths: number[]},
 *   valueName?: string}} options parts: the chunks or pages the values came in (their boundaries
 *   are drawn); valueName: the y axis name (default "value (dtype)")
 */
export function renderValuesPanel(container, result, options) {
  const { stats, hist } = result;
  const stat = (label, value, key) => el('div', {}, el('dt', {}, label), el('dd', { dataset: { stat: key } }, value));
  const items = [
    stat('values', formatInt(stats.count), 'count'),
    stat('dtype', stats.dtype ?? 'none', 'dtype'),
    stat('min', stats.min ?? '–', 'min'),
    stat('max', stats.max ?? '–', 'max'),
    stat('mean', stats.mean === null ? '–' : formatApprox(stats.mean), 'mean'),
    stat('std. deviation', stats.std === null ? '–' : formatApprox(stats.std), 'std'),
  ];
  if (stats.nan) items.push(stat('NaN', formatInt(stats.nan), 'nan'));
  for (const [label, value, key] of options.extra ?? []) items.push(stat(label, value, key));
  items.push(stat('decode time', `${result.decodeMs.toFixed(1)} ms`, 'decode-ms'));

  const readout = el('span', { class: 'readout', 'aria-live': 'off' });
  const canvas = el('canvas', {
    class: 'chart',
    tabindex: 0,
    role: 'img',
    'aria-label': `line plot of ${result.plot.length} values; + and - zoom, arrow keys pan, 0 resets`,
  });
  const histCanvas = el('canvas', { class: 'chart short', role: 'img', 'aria-label': 'histogram of the values' });
  const plot = new LinePlot(canvas, readout);
  const boundaries = options.parts && options.parts.lengths.length > 1 ? startsOf(options.parts.lengths) : [];
  const csvButton = el('button', { type: 'button' }, 'Download .csv');
  csvButton.addEventListener('click', async () => {
    csvButton.disabled = true;
    try {
      download(await options.requestCsv(), `${options.baseName}.csv`);
    } finally {
      csvButton.disabled = false;
    }
  });

  container.replaceChildren(
    el('h3', {}, 'Values'),
    el('dl', { class: 'stats' }, items),
    el('div', { class: 'plot-tools' },
      el('button', { type: 'button', onclick: () => plot.zoom(0.5), 'aria-label': 'zoom in' }, 'Zoom in'),
      el('button', { type: 'button', onclick: () => plot.zoom(2), 'aria-label': 'zoom out' }, 'Zoom out'),
      el('button', { type: 'button', onclick: () => plot.reset() }, 'Reset'),
      readout),
    canvas,
    el('p', { class: 'muted small' },
      'Wheel, + and − zoom; drag or arrow keys pan; double-click or 0 resets. Zoomed out, each pixel column shows the min–max envelope of the values under it.',
      boundaries.length ? el('span', { dataset: { boundaries: String(boundaries.length) } }, ` Dashed lines: where each of the ${formatInt(boundaries.length + 1)} ${options.parts.name}s starts.`) : null,
      options.markers?.length ? el('span', {}, el('span', { class: 'swatch marker' }), options.markerNote ?? '') : null),
    el('h3', {}, 'Histogram'),
    histCanvas,
    el('p', { class: 'muted small', dataset: { stat: 'hist' } },
      hist.counts.length
        ? `${hist.counts.length} bins from ${formatApprox(hist.lo)} to ${formatApprox(hist.hi)} (finite values only)`
        : 'no finite values'),
    el('h3', {}, `First ${result.first.length} values`),
    el('ol', { class: 'first', start: 0, dataset: { stat: 'first' } }, result.first.map((v) => el('li', {}, v))),
    el('div', { class: 'row' },
      el('button', { type: 'button', onclick: () => download(result.blob, `${options.baseName}.bin`) }, 'Download .bin'),
      csvButton,
      el('span', { class: 'muted small' }, result.valid
        ? '.bin: raw little-endian values, NaN at the nulls; .csv: one value per line, "" at the nulls'
        : '.bin: raw little-endian values; .csv: one value per line')),
  );
  const valueName = options.valueName ?? `value (${stats.dtype ?? 'none'})`;
  // A Parquet column's null rows read as null (their plotted NaN is a gap, not a value).
  const valueText = (k) => (result.valid && !result.valid[k] ? 'null' : exactText(stats.dtype, result.plot[k]));
  plot.setData(result.plot, {
    // The address bar holds the zoom (a copied link restores it).
    onView: (view) => updateView({ view: viewText(view, result.plot.length) }),
    markers: options.markers ?? null,
    boundaries,
    xName: 'value index',
    yName: valueName,
    exactValue: valueText,
    pointText: (k) => `value[${k}] = ${valueText(k)}`,
  });
  const zoom = parseViewText(toRestore('view'));
  if (zoom) plot.setView(zoom[0], zoom[1]);
  const drawHist = () => drawBars(histCanvas, hist.counts, { xRange: [hist.lo, hist.hi], xName: valueName, yName: 'count' });
  drawHist();
  new ResizeObserver(drawHist).observe(histCanvas);
  redrawOnThemeChange(histCanvas, drawHist);
  return plot;
}
