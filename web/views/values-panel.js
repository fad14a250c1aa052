// The values half of the Pco and ALP views: summary statistics, a zoomable line plot,
// a histogram, the first values and downloads. Filled from a decode-worker result.
import { el, download, formatInt } from '../lib/dom.js';
import { LinePlot, drawBars } from '../lib/plot.js';
import { formatApprox } from '../lib/values.js';

/**
 * @param {HTMLElement} container
 * @param {object} result worker result: stats, hist, plot, first, blob, decodeMs
 * @param {{baseName: string, extra?: Array<[string, string, string]>, markers?: Uint32Array,
 *   markerNote?: string, requestCsv: () => Promise<Blob>}} options
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
    'aria-label': `line plot of ${stats.count} values; + and - zoom, arrow keys pan, 0 resets`,
  });
  const histCanvas = el('canvas', { class: 'chart short', role: 'img', 'aria-label': 'histogram of the values' });
  const plot = new LinePlot(canvas, readout);
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
      el('span', { class: 'muted small' }, '.bin: raw little-endian values; .csv: one value per line')),
  );
  plot.setData(result.plot, options.markers ?? null);
  const drawHist = () => drawBars(histCanvas, hist.counts, { xRange: [hist.lo, hist.hi] });
  drawHist();
  new ResizeObserver(drawHist).observe(histCanvas);
  return plot;
}
