// Small canvas charts for the demo: a zoomable line plot that draws a min/max envelope when
// there are more points than pixels, a histogram, a bar chart, a sparse stem plot and a
// heatmap. Hand-written: each is a few dozen lines and needs nothing from outside.
import { formatApprox } from './values.js';

const COLORS = {
  line: '#2459c9',
  band: 'rgba(36, 89, 201, 0.35)',
  marker: '#d62f2f',
  axis: '#6b7280',
  grid: '#e5e7eb',
  text: '#374151',
  bar: '#2f855a',
  barAlt: '#d97706',
};
const PAD = { left: 64, right: 12, top: 10, bottom: 26 };

function niceTicks(lo, hi, count) {
  if (!(hi > lo)) return [lo];
  const raw = (hi - lo) / count;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * mag).find((s) => s >= raw) ?? 10 * mag;
  const ticks = [];
  for (let t = Math.ceil(lo / step) * step; t <= hi + step * 1e-9; t += step) ticks.push(Math.abs(t) < step * 1e-9 ? 0 : t);
  return ticks;
}

/** Sizes a canvas to its CSS box at device resolution; returns the 2D context and CSS size. */
function prepare(canvas) {
  const dpr = window.devicePixelRatio || 1;
  const width = Math.max(50, canvas.clientWidth);
  const height = Math.max(50, canvas.clientHeight);
  if (canvas.width !== Math.round(width * dpr) || canvas.height !== Math.round(height * dpr)) {
    canvas.width = Math.round(width * dpr);
    canvas.height = Math.round(height * dpr);
  }
  const ctx = canvas.getContext('2d');
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  ctx.clearRect(0, 0, width, height);
  ctx.font = '11px system-ui, sans-serif';
  return { ctx, width, height };
}

// Compact labels for value positions: 1500, 250k, 1.5M.
function indexLabel(t) {
  const a = Math.abs(t);
  if (a >= 1e6) return `${Number((t / 1e6).toPrecision(4))}M`;
  if (a >= 1e4) return `${Number((t / 1e3).toPrecision(4))}k`;
  return String(t);
}

function drawAxes(ctx, width, height, x0, x1, y0, y1, { xLabel = indexLabel, integerX = true } = {}) {
  const pw = width - PAD.left - PAD.right;
  const ph = height - PAD.top - PAD.bottom;
  ctx.strokeStyle = COLORS.grid;
  ctx.fillStyle = COLORS.text;
  ctx.lineWidth = 1;
  ctx.textAlign = 'right';
  ctx.textBaseline = 'middle';
  for (const t of niceTicks(y0, y1, Math.max(2, Math.floor(ph / 40)))) {
    const y = PAD.top + ph - ((t - y0) / (y1 - y0 || 1)) * ph;
    if (y < PAD.top - 1 || y > PAD.top + ph + 1) continue;
    ctx.beginPath();
    ctx.moveTo(PAD.left, Math.round(y) + 0.5);
    ctx.lineTo(PAD.left + pw, Math.round(y) + 0.5);
    ctx.stroke();
    ctx.fillText(formatApprox(t), PAD.left - 6, y);
  }
  ctx.textAlign = 'center';
  ctx.textBaseline = 'top';
  for (const t of niceTicks(x0, x1, Math.max(2, Math.floor(pw / 90)))) {
    if (integerX && !Number.isInteger(t)) continue;
    const x = PAD.left + ((t - x0) / (x1 - x0 || 1)) * pw;
    if (x < PAD.left - 1 || x > PAD.left + pw + 1) continue;
    const text = xLabel(t);
    // Keep the first and last labels inside the canvas.
    const half = ctx.measureText(text).width / 2;
    ctx.fillText(text, Math.min(width - half - 2, Math.max(half + 2, x)), PAD.top + ph + 6);
  }
  ctx.strokeStyle = COLORS.axis;
  ctx.strokeRect(PAD.left + 0.5, PAD.top + 0.5, pw, ph);
  return { pw, ph };
}

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
 * as red dots, e.g. ALP exceptions.
 */
export class LinePlot {
  constructor(canvas, readout) {
    this.canvas = canvas;
    this.readout = readout;
    this.values = new Float64Array(0);
    this.markers = null;
    this.view = [0, 1];
    canvas.addEventListener('wheel', (e) => this._onWheel(e), { passive: false });
    canvas.addEventListener('pointerdown', (e) => this._onDown(e));
    canvas.addEventListener('pointermove', (e) => this._onMove(e));
    canvas.addEventListener('pointerup', () => (this.drag = null));
    canvas.addEventListener('pointerleave', () => {
      this.drag = null;
      this._hover(null);
    });
    canvas.addEventListener('dblclick', () => this.reset());
    canvas.addEventListener('keydown', (e) => this._onKey(e));
    new ResizeObserver(() => this.draw()).observe(canvas);
  }

  setData(values, markers = null) {
    this.values = values;
    // Infinity would swamp the y range: blocks and ranges consider finite values only.
    this.finite = values.some((v) => !Number.isFinite(v)) ? values.map((v) => (Number.isFinite(v) ? v : NaN)) : values;
    this.blocks = values.length > 8 * BLOCK ? blockExtremes(this.finite) : null;
    this.markers = markers && markers.length ? markers : null;
    this.reset();
  }

  reset() {
    this.view = [0, Math.max(1, this.values.length)];
    this.draw();
  }

  /** Shows [i0, i1) (clamped; at least 8 points wide). */
  setView(i0, i1) {
    const n = Math.max(1, this.values.length);
    let w = Math.max(Math.min(8, n), Math.min(n, i1 - i0));
    i0 = Math.max(0, Math.min(n - w, i0));
    this.view = [i0, i0 + w];
    this.draw();
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
    const pw = rect.width - PAD.left - PAD.right;
    const t = (clientX - rect.left - PAD.left) / pw;
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
    if (this.drag) {
      const rect = this.canvas.getBoundingClientRect();
      const pw = rect.width - PAD.left - PAD.right;
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
    const rect = this.canvas.getBoundingClientRect();
    const pw = rect.width - PAD.left - PAD.right;
    const perPx = (this.view[1] - this.view[0]) / pw;
    const i = Math.floor(this._xToIndex(clientX));
    if (perPx <= 1) {
      const k = Math.min(this.values.length - 1, i);
      this.readout.textContent = `value[${k}] = ${formatApprox(this.values[k])}`;
    } else {
      const i1 = Math.min(this.values.length, Math.ceil(i + perPx));
      const [lo, hi] = rangeExtremes(this.finite, this.blocks, i, i1);
      this.readout.textContent = `values[${i}..${i1 - 1}]: min ${formatApprox(lo)}, max ${formatApprox(hi)}`;
    }
  }

  _viewText() {
    const [a, b] = this.view;
    return `showing values ${Math.floor(a)} to ${Math.ceil(b) - 1} of ${this.values.length}`;
  }

  draw() {
    // A canvas that left the page (another file was opened) or has no room is not drawn:
    // with no width every point would become its own path segment.
    if (!this.canvas.isConnected || this.canvas.clientWidth < PAD.left + PAD.right + 10) return;
    const { ctx, width, height } = prepare(this.canvas);
    const n = this.values.length;
    if (this.readout) this.readout.textContent = n ? this._viewText() : 'no values';
    if (n === 0) {
      ctx.fillStyle = COLORS.text;
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
    const { pw, ph } = drawAxes(ctx, width, height, a, b, lo, hi);
    const xOf = (i) => PAD.left + ((i + 0.5 - a) / (b - a)) * pw;
    const yOf = (v) => PAD.top + ph - ((v - lo) / (hi - lo)) * ph;
    ctx.save();
    ctx.beginPath();
    ctx.rect(PAD.left, PAD.top, pw, ph);
    ctx.clip();
    const perPx = (i1 - i0) / pw;
    if (perPx > 1.5) {
      // Envelope: for each pixel column the min and max of the values under it.
      const cols = Math.ceil(pw);
      const mins = new Float64Array(cols);
      const maxs = new Float64Array(cols);
      for (let c = 0; c < cols; c++) {
        const s = Math.max(i0, Math.floor(a + (c / pw) * (b - a)));
        const e = Math.min(i1, Math.max(s + 1, Math.floor(a + ((c + 1) / pw) * (b - a))));
        [mins[c], maxs[c]] = rangeExtremes(this.finite, this.blocks, s, e);
      }
      ctx.fillStyle = COLORS.band;
      ctx.strokeStyle = COLORS.line;
      ctx.lineWidth = 1;
      ctx.beginPath();
      for (let c = 0; c < cols; c++) {
        if (!(mins[c] <= maxs[c])) continue;
        const x = PAD.left + c + 0.5;
        ctx.moveTo(x, yOf(maxs[c]) - 0.5);
        ctx.lineTo(x, yOf(mins[c]) + 0.5);
      }
      ctx.stroke();
    } else {
      ctx.strokeStyle = COLORS.line;
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
        ctx.fillStyle = COLORS.line;
        for (let i = i0; i < i1; i++) {
          const v = this.finite[i];
          if (v === v) ctx.fillRect(xOf(i) - 1.5, yOf(v) - 1.5, 3, 3);
        }
      }
    }
    if (this.markers) {
      // Markers in view: a dot at the value (or on the top edge for NaN and ±Infinity).
      ctx.fillStyle = COLORS.marker;
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

/** Vertical bars: counts[i] at category i. labelOf(i) names a bar for the axis and hover. */
export function drawBars(canvas, counts, { xRange = [0, counts.length], colorOf = () => COLORS.bar, yLabel, integerX = false } = {}) {
  if (!canvas.isConnected || canvas.clientWidth < PAD.left + PAD.right + 10) return;
  const { ctx, width, height } = prepare(canvas);
  let hi = 0;
  for (const c of counts) if (c > hi) hi = c;
  if (hi === 0) hi = 1;
  const { pw, ph } = drawAxes(ctx, width, height, xRange[0], xRange[1], 0, hi * 1.05, { integerX, xLabel: integerX ? undefined : formatApprox });
  const n = counts.length;
  for (let i = 0; i < n; i++) {
    const x = PAD.left + (i / n) * pw;
    const w = Math.max(1, pw / n - (pw / n > 4 ? 1 : 0));
    const h = (counts[i] / (hi * 1.05)) * ph;
    ctx.fillStyle = colorOf(i);
    ctx.fillRect(x, PAD.top + ph - h, w, h);
  }
  if (yLabel) {
    ctx.fillStyle = COLORS.text;
    ctx.textAlign = 'left';
    ctx.textBaseline = 'top';
    ctx.fillText(yLabel, PAD.left + 4, PAD.top + 2);
  }
}

export const barColors = { normal: COLORS.bar, alt: COLORS.barAlt, selected: '#1f2937' };

/** Which of n bars drawn by drawBars lies under clientX, or -1. */
export function barAt(canvas, clientX, n) {
  const rect = canvas.getBoundingClientRect();
  const t = (clientX - rect.left - PAD.left) / (rect.width - PAD.left - PAD.right);
  return t >= 0 && t < 1 ? Math.floor(t * n) : -1;
}

/** A sparse vector: stems at index[k] of height val[k] across [0, length). */
export function drawStems(canvas, length, index, val) {
  if (!canvas.isConnected || canvas.clientWidth < PAD.left + PAD.right + 10) return;
  const { ctx, width, height } = prepare(canvas);
  let lo = 0;
  let hi = 0;
  for (const v of val) {
    const x = Number(v);
    if (x < lo) lo = x;
    if (x > hi) hi = x;
  }
  if (lo === hi) hi = lo + 1;
  const { pw, ph } = drawAxes(ctx, width, height, 0, Math.max(1, length), lo, hi * 1.05);
  const yOf = (v) => PAD.top + ph - ((v - lo) / (hi * 1.05 - lo)) * ph;
  ctx.strokeStyle = COLORS.line;
  ctx.fillStyle = COLORS.line;
  ctx.lineWidth = 1;
  ctx.beginPath();
  for (let k = 0; k < index.length; k++) {
    const x = PAD.left + ((index[k] + 0.5) / Math.max(1, length)) * pw;
    ctx.moveTo(x, yOf(0));
    ctx.lineTo(x, yOf(Number(val[k])));
  }
  ctx.stroke();
  if (index.length < 2000) {
    for (let k = 0; k < index.length; k++) {
      const x = PAD.left + ((index[k] + 0.5) / Math.max(1, length)) * pw;
      ctx.fillRect(x - 1.5, yOf(Number(val[k])) - 1.5, 3, 3);
    }
  }
}

// A perceptual ramp (light yellow -> dark blue), with white for exact zeros.
function ramp(t) {
  const stops = [
    [255, 247, 188],
    [161, 218, 180],
    [65, 182, 196],
    [34, 94, 168],
    [12, 44, 132],
  ];
  const x = Math.max(0, Math.min(1, t)) * (stops.length - 1);
  const k = Math.min(stops.length - 2, Math.floor(x));
  const f = x - k;
  return stops[k].map((c, j) => Math.round(c + (stops[k + 1][j] - c) * f));
}

/**
 * Heatmap of a rows x cols block (row-major `data`), colour = log(1 + value) scaled to the
 * block's maximum; each pixel shows the largest value of the cells under it.
 */
export function drawHeatmap(canvas, rows, cols, data) {
  const { ctx, width, height } = prepare(canvas);
  const pw = Math.max(1, Math.floor(width - 2));
  const ph = Math.max(1, Math.floor(height - 2));
  // Square cells when they fit; otherwise each pixel covers several cells.
  const cell = Math.max(1, Math.min(Math.floor(pw / Math.max(1, cols)), Math.floor(ph / Math.max(1, rows))));
  const w = Math.min(pw, cols * cell);
  const h = Math.min(ph, rows * cell);
  let max = 0;
  for (const v of data) if (Number(v) > max) max = Number(v);
  const scale = max > 0 ? Math.log1p(max) : 1;
  const img = ctx.createImageData(w, h);
  for (let py = 0; py < h; py++) {
    const r0 = Math.floor((py / h) * rows);
    const r1 = Math.max(r0 + 1, Math.floor(((py + 1) / h) * rows));
    for (let px = 0; px < w; px++) {
      const c0 = Math.floor((px / w) * cols);
      const c1 = Math.max(c0 + 1, Math.floor(((px + 1) / w) * cols));
      let v = 0;
      for (let r = r0; r < r1; r++) for (let c = c0; c < c1; c++) v = Math.max(v, Number(data[r * cols + c]));
      const at = 4 * (py * w + px);
      const [R, G, B] = v > 0 ? ramp(Math.log1p(v) / scale) : [255, 255, 255];
      img.data[at] = R;
      img.data[at + 1] = G;
      img.data[at + 2] = B;
      img.data[at + 3] = 255;
    }
  }
  // putImageData ignores the canvas transform: draw through a scratch canvas instead.
  const tmp = new OffscreenCanvas(w, h);
  tmp.getContext('2d').putImageData(img, 0, 0);
  ctx.imageSmoothingEnabled = false;
  ctx.drawImage(tmp, 1, 1, w, h);
  ctx.strokeStyle = COLORS.axis;
  ctx.strokeRect(0.5, 0.5, w + 1, h + 1);
  return { max, w, h };
}
