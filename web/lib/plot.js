// Small canvas charts for the demo: a zoomable line plot that draws a min/max envelope when
// there are more points than pixels, a bar chart (histograms too) and a sparse stem plot. Each
// names its axes (lib/axes.js) and takes its colours from the page's theme (lib/theme.js).
// Hand-written: each is a few dozen lines and needs nothing from outside.
import { formatApprox } from './values.js';
import { PAD, drawAxes, indexLabel, plotArea, sizeCanvas } from './axes.js';
import { colors, redrawOnThemeChange } from './theme.js';

// Per-block min/max of the values, so that a zoomed-out view of millions of points scans
// thousands of blocks instead of every value.
const BLOCK = 256;
function blockExtremes(values) {
  const nb = Math.ceil(values.length / BLOCK);
  const min = new Float64Array(nb).fill(NaN);
  const max = new Float64Array(nb).fill(NaN);
  for (let b = 0; b < nb; b++) {
    let lo = Infinity;
    let hi = -Infinity;
    const end = Math.min(values.length, (b + 1) * BLOCK);
    for (let i = b * BLOCK; i < end; i++) {
      const v = values[i];
      if (v < lo) lo = v;
      if (v > hi) hi = v;
    }
    if (lo <= hi) {
      min[b] = lo;
      max[b] = hi;
    }
  }
  return { min, max };
}

// Min and max of values[i0, i1) (NaN and ±Infinity skipped when finiteOnly).
function rangeExtremes(values, blocks, i0, i1) {
  let lo = Infinity;
  let hi = -Infinity;
  let i = i0;
  if (blocks && i1 - i0 > 4 * BLOCK) {
    for (; i < i1 && i % BLOCK; i++) {
      const v = values[i];
      if (v < lo) lo = v;
      if (v > hi) hi = v;
    }
    for (; i + BLOCK <= i1; i += BLOCK) {
      const b = i / BLOCK;
      if (blocks.min[b] < lo) lo = blocks.min[b];
      if (blocks.max[b] > hi) hi = blocks.max[b];
    }
  }
  for (; i < i1; i++) {
    const v = values[i];
    if (v < lo) lo = v;
    if (v > hi) hi = v;
  }
  return [lo, hi];
}

/**
 * A line plot of one array of doubles, indexed 0..n-1. Zoom with the wheel, buttons or keys
 * (+, -, arrows, 0), pan by dragging, double-click to reset. Markers (sorted indices) are drawn
 * as red dots, e.g. ALP exceptions; boundaries (sorted indices where a chunk or page starts) as
 * dashed lines.
 */
export class LinePlot {
  constructor(canvas, readout) {
    this.canvas = canvas;
    this.readout = readout;
    this.values = new Float64Array(0);
    this.options = {};
    this.markers = null;
    this.view = [0, 1];
    this.pointerX = null; // where the pointer rests over the plot, to read the new data there
    canvas.addEventListener('wheel', (e) => this._onWheel(e), { passive: false });
    canvas.addEventListener('pointerdown', (e) => this._onDown(e));
    canvas.addEventListener('pointermove', (e) => this._onMove(e));
    canvas.addEventListener('pointerup', () => (this.drag = null));
    canvas.addEventListener('pointerleave', () => {
      this.drag = null;
      this.pointerX = null;
      this._hover(null);
    });
    canvas.addEventListener('dblclick', () => this.reset());
    canvas.addEventListener('keydown', (e) => this._onKey(e));
    new ResizeObserver(() => this.draw()).observe(canvas);
    redrawOnThemeChange(canvas, () => this.draw());
  }

  /**
   * @param {Float64Array} values
   * @param {{markers?: Uint32Array|null, boundaries?: ArrayLike<number>|null, xName?: string, yName?: string,
   *   xLabel?: (i: number) => string, yLabel?: (v: number) => string, pointText?: (i: number) => string,
   *   exactValue?: (i: number) => string, onView?: (view: [number, number]) => void}} [options] xLabel:
   *   the text of position i on the x axis (e.g. a coordinate); yLabel: of a value on the y axis;
   *   pointText: the readout for position i (default `value[i] = ≈v`); exactValue: the exact text of
   *   value i, kept in the readout's data-value for scripts; onView: told each new zoom or pan
   */
  setData(values, options = {}) {
    this.values = values;
    this.options = options;
    // Infinity would swamp the y range: blocks and ranges consider finite values only.
    this.finite = values.some((v) => !Number.isFinite(v)) ? values.map((v) => (Number.isFinite(v) ? v : NaN)) : values;
    this.blocks = values.length > 8 * BLOCK ? blockExtremes(this.finite) : null;
    this.markers = options.markers?.length ? options.markers : null;
    this.reset();
  }

  reset() {
    this.setView(0, Math.max(1, this.values.length));
  }

  /** Shows [i0, i1) (clamped; at least 8 points wide). */
  setView(i0, i1) {
    const n = Math.max(1, this.values.length);
    const w = Math.max(Math.min(8, n), Math.min(n, i1 - i0));
    i0 = Math.max(0, Math.min(n - w, i0));
    this.view = [i0, i0 + w];
    this.draw();
    this.options.onView?.(this.view);
    // The readout always speaks of the data on show, at the pointer if it rests on the plot.
    if (this.pointerX !== null) this._hover(this.pointerX);
  }

  zoom(factor, center = (this.view[0] + this.view[1]) / 2) {
    const [a, b] = this.view;
    const w = (b - a) * factor;
    const t = (center - a) / (b - a);
    this.setView(center - t * w, center - t * w + w);
  }

  pan(fraction) {
    const [a, b] = this.view;
    this.setView(a + (b - a) * fraction, b + (b - a) * fraction);
  }

  _xToIndex(clientX) {
    const rect = this.canvas.getBoundingClientRect();
    const { left, width: pw } = plotArea(this.canvas);
    const t = (clientX - rect.left - left) / pw;
    return this.view[0] + Math.max(0, Math.min(1, t)) * (this.view[1] - this.view[0]);
  }

  _onWheel(e) {
    e.preventDefault();
    this.zoom(e.deltaY > 0 ? 1.25 : 0.8, this._xToIndex(e.clientX));
  }

  _onDown(e) {
    this.drag = { x: e.clientX, view: [...this.view] };
    this.canvas.setPointerCapture?.(e.pointerId);
  }

  _onMove(e) {
    this.pointerX = e.clientX;
    if (this.drag) {
      const pw = plotArea(this.canvas).width;
      const [a, b] = this.drag.view;
      const shift = ((this.drag.x - e.clientX) / pw) * (b - a);
      this.setView(a + shift, b + shift);
    } else {
      this._hover(e.clientX);
    }
  }

  _onKey(e) {
    const actions = {
      '+': () => this.zoom(0.5),
      '=': () => this.zoom(0.5),
      '-': () => this.zoom(2),
      ArrowLeft: () => this.pan(-0.25),
      ArrowRight: () => this.pan(0.25),
      0: () => this.reset(),
      Home: () => this.reset(),
    };
    const act = actions[e.key];
    if (act) {
      e.preventDefault();
      act();
    }
  }

  _hover(clientX) {
    if (!this.readout) return;
    if (clientX === null || this.values.length === 0) {
      this.readout.textContent = this._viewText();
      return;
    }
    const perPx = (this.view[1] - this.view[0]) / plotArea(this.canvas).width;
    const i = Math.floor(this._xToIndex(clientX));
    const number = this.options.yLabel ?? formatApprox;
    if (perPx <= 1) {
      const k = Math.min(this.values.length - 1, i);
      this.readout.textContent = this.options.pointText ? this.options.pointText(k) : `value[${k}] = ${formatApprox(this.values[k])}`;
      this.readout.dataset.index = String(k);
      if (this.options.exactValue) this.readout.dataset.value = this.options.exactValue(k);
    } else {
      const i1 = Math.min(this.values.length, Math.ceil(i + perPx));
      const [lo, hi] = rangeExtremes(this.finite, this.blocks, i, i1);
      this.readout.textContent = `values[${i}..${i1 - 1}]: min ${number(lo)}, max ${number(hi)}`;
      delete this.readout.dataset.index;
      delete this.readout.dataset.value;
    }
  }

  _viewText() {
    const [a, b] = this.view;
    return this.values.length ? `showing values ${Math.floor(a)} to ${Math.ceil(b) - 1} of ${this.values.length}` : 'no values';
  }

  draw() {
    // A canvas that left the page (another file was opened) or has no room is not drawn:
    // with no width every point would become its own path segment.
    if (!this.canvas.isConnected || this.canvas.clientWidth < PAD.left + PAD.right + 10) return;
    const c = colors();
    const { ctx, width, height } = sizeCanvas(this.canvas);
    const n = this.values.length;
    if (this.readout) {
      this.readout.textContent = this._viewText();
      delete this.readout.dataset.index;
      delete this.readout.dataset.value;
    }
    if (n === 0) {
      ctx.fillStyle = c.text;
      ctx.fillText('no values', width / 2 - 25, height / 2);
      return;
    }
    const [a, b] = this.view;
    const i0 = Math.max(0, Math.floor(a));
    const i1 = Math.min(n, Math.ceil(b));
    let [lo, hi] = rangeExtremes(this.finite, this.blocks, i0, i1);
    if (!(lo <= hi)) [lo, hi] = [0, 1];
    if (lo === hi) [lo, hi] = [lo - 1, hi + 1];
    const margin = (hi - lo) * 0.05;
    lo -= margin;
    hi += margin;
    const { xLabel, yLabel, xName = 'value index', yName = 'value' } = this.options;
    const { left, pw, ph } = drawAxes(ctx, width, height, a, b, lo, hi, {
      xLabel: xLabel ? (t) => xLabel(Math.min(n - 1, Math.max(0, t))) : indexLabel,
      yLabel,
      xName,
      yName,
    });
    const xOf = (i) => left + ((i + 0.5 - a) / (b - a)) * pw;
    const yOf = (v) => PAD.top + ph - ((v - lo) / (hi - lo)) * ph;
    ctx.save();
    ctx.beginPath();
    ctx.rect(left, PAD.top, pw, ph);
    ctx.clip();
    this._drawBoundaries(ctx, c, a, b, left, pw, ph);
    const perPx = (i1 - i0) / pw;
    if (perPx > 1.5) {
      // Envelope: for each pixel column the min and max of the values under it.
      const cols = Math.ceil(pw);
      const mins = new Float64Array(cols);
      const maxs = new Float64Array(cols);
      for (let col = 0; col < cols; col++) {
        const s = Math.max(i0, Math.floor(a + (col / pw) * (b - a)));
        const e = Math.min(i1, Math.max(s + 1, Math.floor(a + ((col + 1) / pw) * (b - a))));
        [mins[col], maxs[col]] = rangeExtremes(this.finite, this.blocks, s, e);
      }
      ctx.strokeStyle = c.line;
      ctx.lineWidth = 1;
      ctx.beginPath();
      for (let col = 0; col < cols; col++) {
        if (!(mins[col] <= maxs[col])) continue;
        const x = left + col + 0.5;
        ctx.moveTo(x, yOf(maxs[col]) - 0.5);
        ctx.lineTo(x, yOf(mins[col]) + 0.5);
      }
      ctx.stroke();
    } else {
      ctx.strokeStyle = c.line;
      ctx.lineWidth = 1.5;
      ctx.beginPath();
      let pen = false;
      for (let i = i0; i < i1; i++) {
        const v = this.finite[i];
        if (v !== v) {
          pen = false;
          continue;
        }
        if (pen) ctx.lineTo(xOf(i), yOf(v));
        else ctx.moveTo(xOf(i), yOf(v));
        pen = true;
      }
      ctx.stroke();
      if (perPx < 0.2) {
        ctx.fillStyle = c.line;
        for (let i = i0; i < i1; i++) {
          const v = this.finite[i];
          if (v === v) ctx.fillRect(xOf(i) - 1.5, yOf(v) - 1.5, 3, 3);
        }
      }
    }
    if (this.markers) {
      // Markers in view: a dot at the value (or on the top edge for NaN and ±Infinity).
      ctx.fillStyle = c.marker;
      let k = lowerBound(this.markers, i0);
      // At most about 5000 dots: beyond that they merge into a band anyway.
      const step = Math.max(1, Math.floor((lowerBound(this.markers, i1) - k) / 5000));
      for (; k < this.markers.length && this.markers[k] < i1; k += step) {
        const i = this.markers[k];
        const v = this.finite[i];
        const y = v === v ? yOf(v) : PAD.top + 4;
        ctx.beginPath();
        ctx.arc(xOf(i), y, 3, 0, 2 * Math.PI);
        ctx.fill();
      }
    }
    ctx.restore();
  }

  // Dashed lines where chunks or pages start, when they are at least 3 pixels apart.
  _drawBoundaries(ctx, c, a, b, left, pw, ph) {
    const bounds = this.options.boundaries;
    if (!bounds?.length) return;
    const k0 = lowerBound(bounds, Math.ceil(a));
    const k1 = lowerBound(bounds, Math.floor(b) + 1);
    if (k1 - k0 > pw / 3) return;
    ctx.strokeStyle = c.boundary;
    ctx.lineWidth = 1;
    ctx.setLineDash([4, 3]);
    ctx.beginPath();
    for (let k = k0; k < k1; k++) {
      const x = Math.round(left + ((bounds[k] - a) / (b - a)) * pw) + 0.5;
      ctx.moveTo(x, PAD.top);
      ctx.lineTo(x, PAD.top + ph);
    }
    ctx.stroke();
    ctx.setLineDash([]);
  }
}

function lowerBound(sorted, x) {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid] < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * Vertical bars: counts[i] at category i, across xRange. colorOf(i) colours a bar (default the
 * bar colour); xName and yName name the axes.
 */
export function drawBars(canvas, counts, { xRange = [0, counts.length], colorOf, xName, yName = 'count', integerX = false } = {}) {
  if (!canvas.isConnected || canvas.clientWidth < PAD.left + PAD.right + 10) return;
  const c = colors();
  const { ctx, width, height } = sizeCanvas(canvas);
  let hi = 0;
  for (const v of counts) if (v > hi) hi = v;
  if (hi === 0) hi = 1;
  const { left, pw, ph } = drawAxes(ctx, width, height, xRange[0], xRange[1], 0, hi * 1.05, {
    integerX, xLabel: integerX ? undefined : formatApprox, xName, yName,
  });
  const n = counts.length;
  for (let i = 0; i < n; i++) {
    const x = left + (i / n) * pw;
    const w = Math.max(1, pw / n - (pw / n > 4 ? 1 : 0));
    const h = (counts[i] / (hi * 1.05)) * ph;
    ctx.fillStyle = colorOf?.(i) ?? c.bar;
    ctx.fillRect(x, PAD.top + ph - h, w, h);
  }
}

/** The bar colours of the current theme: normal, alt (e.g. a vector with exceptions), selected. */
export function barColors() {
  const c = colors();
  return { normal: c.bar, alt: c.barAlt, selected: c.selected };
}

/** Which of n bars drawn by drawBars lies under clientX, or -1. */
export function barAt(canvas, clientX, n) {
  const { left, width } = plotArea(canvas);
  const t = (clientX - canvas.getBoundingClientRect().left - left) / width;
  return t >= 0 && t < 1 ? Math.floor(t * n) : -1;
}

/** A sparse vector: stems at index[k] of height val[k] across [0, length), axes named xName and yName. */
export function drawStems(canvas, length, index, val, { xName = 'index', yName = 'value' } = {}) {
  if (!canvas.isConnected || canvas.clientWidth < PAD.left + PAD.right + 10) return;
  const c = colors();
  const { ctx, width, height } = sizeCanvas(canvas);
  let lo = 0;
  let hi = 0;
  for (const v of val) {
    const x = Number(v);
    if (x < lo) lo = x;
    if (x > hi) hi = x;
  }
  if (lo === hi) hi = lo + 1;
  const top = hi + (hi - lo) * 0.05;
  const { left, pw, ph } = drawAxes(ctx, width, height, 0, Math.max(1, length), lo, top, { xName, yName });
  const yOf = (v) => PAD.top + ph - ((v - lo) / (top - lo)) * ph;
  ctx.strokeStyle = c.line;
  ctx.fillStyle = c.line;
  ctx.lineWidth = 1;
  ctx.beginPath();
  for (let k = 0; k < index.length; k++) {
    const x = left + ((index[k] + 0.5) / Math.max(1, length)) * pw;
    ctx.moveTo(x, yOf(0));
    ctx.lineTo(x, yOf(Number(val[k])));
  }
  ctx.stroke();
  if (index.length < 2000) {
    for (let k = 0; k < index.length; k++) {
      const x = left + ((index[k] + 0.5) / Math.max(1, length)) * pw;
      ctx.fillRect(x - 1.5, yOf(Number(val[k])) - 1.5, 3, 3);
    }
  }
}
