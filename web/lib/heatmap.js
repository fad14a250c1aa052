// Heatmaps of a block of numbers with their axes, and the colour bar that reads them. The scale
// follows the data: signed data gets a diverging scale centred on zero (a negative value must not
// look like a zero), sparse counts a log scale with zero as the background, anything else viridis.
// NaN is drawn plain grey; cells that are not stored (they read as the fill value) are hatched,
// so that a missing chunk never passes for data.
import { FONT, NAME_FONT, drawXName, drawYName, fitText, niceTicks, sizeCanvas } from './axes.js';
import { formatApprox } from './values.js';
import { colors, isDark, rgb } from './theme.js';

// Viridis, sampled at 9 stops.
const VIRIDIS = [
  [68, 1, 84], [71, 44, 122], [59, 81, 139], [44, 113, 142], [33, 144, 141],
  [39, 173, 129], [92, 200, 99], [170, 220, 50], [253, 231, 37],
];
// Blue (negative) to red (positive) through a neutral middle (ColorBrewer RdBu, reversed).
const BLUE_RED = [[33, 102, 172], [67, 147, 195], [146, 197, 222], null, [244, 165, 130], [214, 96, 77], [178, 24, 43]];
// Light yellow to dark blue (ColorBrewer YlGnBu) for counts above zero.
const COUNTS = [[255, 247, 188], [161, 218, 180], [65, 182, 196], [34, 94, 168], [12, 44, 132]];

function ramp(stops, t) {
  const x = Math.max(0, Math.min(1, t)) * (stops.length - 1);
  const k = Math.min(stops.length - 2, Math.floor(x));
  const f = x - k;
  return stops[k].map((c, j) => Math.round(c + (stops[k + 1][j] - c) * f));
}

/** The colour of t in [0, 1] on viridis. */
export function colorAt(t) {
  return ramp(VIRIDIS, t);
}

/** Finite minimum and maximum of numbers (null when there are none). */
export function finiteRange(numbers) {
  let lo = Infinity;
  let hi = -Infinity;
  for (const v of numbers) {
    if (v < lo) lo = v;
    if (v > hi) hi = v;
  }
  return lo <= hi && Number.isFinite(lo) && Number.isFinite(hi) ? [lo, hi] : null;
}

/**
 * The colour scale for data in [lo, hi]: {kind, lo, hi, color(v) -> [r, g, b], position(v) and its
 * inverse valueAt(t) (where v sits along the colour bar, 0 to 1), ticks, describe}. kind 'diverging'
 * when the data has both signs (zero in the middle), 'counts' for sparse data that is never
 * negative (zero is the background), else 'sequential' (viridis). Sparse data (a single-cell
 * matrix: most values small, a few large) goes on a log scale, so that the many small values
 * still show their colour; dense data (a field) on a linear one.
 * @param {number} lo
 * @param {number} hi
 * @param {{sparse?: boolean}} [options]
 */
export function colorScale(lo, hi, { sparse = false } = {}) {
  if (lo < 0 && hi > 0) {
    const m = Math.max(-lo, hi);
    const mid = isDark() ? [58, 62, 70] : [247, 247, 247];
    const stops = BLUE_RED.map((s) => s ?? mid);
    const top = Math.log1p(m);
    const position = sparse
      ? (v) => 0.5 + (0.5 * Math.sign(v) * Math.log1p(Math.abs(v))) / top
      : (v) => (v + m) / (2 * m);
    const valueAt = sparse
      ? (t) => Math.sign(t - 0.5) * Math.expm1(Math.abs(t - 0.5) * 2 * top)
      : (t) => -m + t * 2 * m;
    const half = sparse ? logTicks(m).filter((t) => t > 0) : niceTicks(0, m, 3).filter((t) => t > 0);
    return {
      kind: 'diverging', lo: -m, hi: m, position, valueAt,
      color: (v) => ramp(stops, position(v)),
      ticks: [...half.map((t) => -t).reverse(), 0, ...half],
      describe: `blue below zero, red above, ${isDark() ? 'grey' : 'white'} at zero${sparse ? ' (colour grows with log(1 + |value|))' : ''}`,
    };
  }
  if (sparse && lo >= 0) {
    const zero = isDark() ? rgb(colors().card) : [255, 255, 255];
    const max = Math.max(hi, 1);
    const top = Math.log1p(max);
    return {
      kind: 'counts', lo: 0, hi: max,
      position: (v) => Math.log1p(Math.max(0, v)) / top,
      valueAt: (t) => Math.expm1(t * top),
      color: (v) => (v > 0 ? ramp(COUNTS, Math.log1p(v) / top) : zero),
      ticks: logTicks(max),
      describe: 'colour is log(1 + value); zero is the background',
    };
  }
  const top = hi > lo ? hi : lo + 1;
  return {
    kind: 'sequential', lo, hi: top,
    position: (v) => (v - lo) / (top - lo),
    valueAt: (t) => lo + t * (top - lo),
    color: (v) => ramp(VIRIDIS, (v - lo) / (top - lo)),
    ticks: niceTicks(lo, top, 6),
    describe: 'viridis, from the minimum to the maximum',
  };
}

function logTicks(max) {
  const ticks = [0];
  for (let t = 1; t <= max; t *= 10) ticks.push(t);
  if (ticks[ticks.length - 1] !== max) ticks.push(max);
  return ticks;
}

const BOTTOM = 40; // x tick labels and the x axis name
const TOP = 6;
const RIGHT = 10;

// Room on the left for the y tick labels (the widest of those drawn) and the y axis name.
function leftMargin(ctx, labels) {
  ctx.font = FONT;
  const widest = labels.reduce((w, s) => Math.max(w, ctx.measureText(s).width), 0);
  return Math.round(Math.min(160, Math.max(34, widest + 8)) + 20);
}

// The tick positions of an axis of n cells: every cell when each has `every` pixels, else round indices.
function tickCells(n, pixels, every) {
  if (pixels / n >= every) return Array.from({ length: n }, (_, i) => i);
  return niceTicks(0, n - 1, Math.max(2, Math.floor(pixels / (every * 4)))).filter((t) => Number.isInteger(t) && t < n);
}

/**
 * Sets a heatmap canvas's CSS height so that square cells fill its width, within [min, max] pixels.
 */
export function fitHeatmapHeight(canvas, rows, cols, { min = 160, max = 460, left = 80 } = {}) {
  const w = Math.max(50, canvas.clientWidth - left - RIGHT);
  canvas.style.height = `${Math.round(Math.max(min, Math.min(max, (w * rows) / Math.max(1, cols) + TOP + BOTTOM + 2)))}px`;
}

/**
 * Draws a rows x cols block (row-major numbers, row 0 at the top) with its axes.
 * @param {HTMLCanvasElement} canvas
 * @param {{rows: number, cols: number, values: ArrayLike<number>, scale: ReturnType<typeof colorScale>,
 *   notStored?: (r: number, c: number) => boolean,
 *   x: {name: string, label: (i: number) => string, ticks?: (count: number) => number[] | null},
 *   y: {name: string, label: (i: number) => string, ticks?: (count: number) => number[] | null}}} spec
 *   x.label(c) / y.label(r): the text of column c / row r (a coordinate value, a name or the index);
 *   ticks(count): where to put about `count` ticks (default: every cell when they are large, else round indices);
 *   square: cells keep a square shape (a map), else they fill the canvas (a matrix block)
 * @returns {{left: number, top: number, w: number, h: number, cellWidth: number, cellHeight: number}}
 *   where the image lies in the canvas, in CSS pixels
 */
export function drawHeatmap(canvas, { rows, cols, values, scale, notStored, x, y, square = true }) {
  const { ctx, width, height } = sizeCanvas(canvas, 30);
  const c = colors();
  const ph0 = Math.max(1, height - TOP - BOTTOM - 2);
  const yTicks = (rows * 14 <= ph0 ? null : y.ticks?.(Math.max(4, Math.floor(ph0 / 45)))) ?? tickCells(rows, ph0, 14);
  const left = leftMargin(ctx, yTicks.map((r) => y.label(r)));
  const pw = Math.max(1, Math.floor(width - left - RIGHT - 2));
  const ph = Math.max(1, Math.floor(ph0));
  // Square cells fill the width or the height; others fill both.
  const cell = Math.min(pw / Math.max(1, cols), ph / Math.max(1, rows));
  const w = square ? Math.max(1, Math.min(pw, Math.round(cols * cell))) : pw;
  const h = square ? Math.max(1, Math.min(ph, Math.round(rows * cell))) : ph;
  const nan = rgb(c.nan);
  const hatch = rgb(c.hatch);
  const hatchBack = rgb(c.hatchBack);
  const img = ctx.createImageData(w, h);
  for (let py = 0; py < h; py++) {
    const r = Math.min(rows - 1, Math.floor((py / h) * rows));
    for (let px = 0; px < w; px++) {
      const col = Math.min(cols - 1, Math.floor((px / w) * cols));
      const v = values[r * cols + col];
      let color;
      if (notStored?.(r, col)) color = (px + py) % 8 < 3 ? hatch : hatchBack;
      else color = Number.isFinite(v) ? scale.color(v) : nan;
      const at = 4 * (py * w + px);
      img.data[at] = color[0];
      img.data[at + 1] = color[1];
      img.data[at + 2] = color[2];
      img.data[at + 3] = 255;
    }
  }
  // putImageData ignores the canvas transform: draw through a scratch canvas instead.
  const tmp = new OffscreenCanvas(w, h);
  tmp.getContext('2d').putImageData(img, 0, 0);
  ctx.imageSmoothingEnabled = false;
  const x0 = left + 1;
  const y0 = TOP + 1;
  ctx.drawImage(tmp, x0, y0, w, h);
  ctx.strokeStyle = c.axis;
  ctx.strokeRect(left + 0.5, TOP + 0.5, w + 1, h + 1);
  // Ticks and their labels at cell centres.
  ctx.font = FONT;
  ctx.fillStyle = c.text;
  ctx.textAlign = 'right';
  ctx.textBaseline = 'middle';
  // The labels drawn, kept on the canvas for scripts (a canvas's text cannot be read back).
  const drawn = { x: [], y: [] };
  let lastY = -Infinity;
  for (const r of yTicks) {
    const ty = y0 + ((r + 0.5) / rows) * h;
    if (ty - lastY < 13) continue;
    lastY = ty;
    ctx.fillRect(left - 3, Math.round(ty), 3, 1);
    ctx.fillText(fitText(ctx, y.label(r), left - 26), left - 5, ty);
    drawn.y.push([r, y.label(r)]);
  }
  ctx.textAlign = 'center';
  ctx.textBaseline = 'top';
  let lastRight = -Infinity;
  const xTicks = (cols * 60 <= w ? null : x.ticks?.(Math.max(4, Math.floor(w / 90)))) ?? tickCells(cols, w, 60);
  for (const col of xTicks) {
    const tx = x0 + ((col + 0.5) / cols) * w;
    const text = fitText(ctx, x.label(col), 140);
    const half = ctx.measureText(text).width / 2;
    const at = Math.min(width - half - 1, Math.max(half + 1, tx));
    if (at - half < lastRight + 8) continue;
    lastRight = at + half;
    ctx.fillRect(Math.round(tx), y0 + h + 1, 1, 3);
    ctx.fillText(text, at, y0 + h + 5);
    drawn.x.push([col, x.label(col)]);
  }
  drawXName(ctx, x.name, x0, w, y0 + h + 36);
  drawYName(ctx, y.name, 2, y0, h);
  Object.assign(canvas.dataset, { xName: x.name, yName: y.name, xTicks: JSON.stringify(drawn.x), yTicks: JSON.stringify(drawn.y) });
  return { left: x0, top: y0, w, h, cellWidth: w / cols, cellHeight: h / rows };
}

/**
 * Follows the pointer over a heatmap: read(event) on each move of a mouse or pen, and
 * release(event) when a button or finger lifts (a tap on a touch screen reads there).
 * @returns {() => {clientX: number, clientY: number} | null} where a mouse rests on the canvas, or
 *   null once it left (a finger never rests): the next data is read there
 */
export function followPointer(canvas, read, release = read) {
  let resting = null;
  canvas.addEventListener('pointermove', (e) => {
    if (e.pointerType === 'touch') return;
    resting = { clientX: e.clientX, clientY: e.clientY };
    read(e);
  });
  canvas.addEventListener('pointerleave', (e) => {
    // The last value read stays readable; the next data will not be read at a pointer that left.
    if (e.pointerType !== 'touch') resting = null;
  });
  canvas.addEventListener('pointerup', (e) => release(e));
  return () => resting;
}

/** Which cell of a heatmap drawn at `geometry` lies under a pointer event: {r, c} or null. */
export function heatmapCellAt(canvas, geometry, rows, cols, e) {
  const rect = canvas.getBoundingClientRect();
  const px = e.clientX - rect.left - geometry.left;
  const py = e.clientY - rect.top - geometry.top;
  if (px < 0 || py < 0 || px >= geometry.w || py >= geometry.h) return null;
  return { r: Math.min(rows - 1, Math.floor((py / geometry.h) * rows)), c: Math.min(cols - 1, Math.floor((px / geometry.w) * cols)) };
}

/**
 * A colour bar across the canvas's full width: its title (what the colours stand for, with the
 * unit) above, the ramp, and round-numbered labels under it.
 * @param {HTMLCanvasElement} canvas
 * @param {ReturnType<typeof colorScale>} scale
 * @param {{title?: string, label?: (v: number) => string}} [options]
 */
export function drawColorBar(canvas, scale, { title = '', label = formatApprox } = {}) {
  const { ctx, width, height } = sizeCanvas(canvas, 30);
  const c = colors();
  const side = 12;
  const barTop = title ? 20 : 2;
  const barH = Math.max(8, height - barTop - 20);
  const span = width - 2 * side;
  const { position } = scale;
  for (let px = 0; px < span; px++) {
    const t = px / Math.max(1, span - 1);
    const [R, G, B] = scale.color(scale.kind === 'counts' && px === 0 ? 0 : scale.valueAt(t));
    ctx.fillStyle = `rgb(${R},${G},${B})`;
    ctx.fillRect(side + px, barTop, 1, barH);
  }
  ctx.strokeStyle = c.axis;
  ctx.strokeRect(side - 0.5, barTop - 0.5, span + 1, barH + 1);
  if (title) {
    ctx.font = NAME_FONT;
    ctx.fillStyle = c.text;
    ctx.textAlign = 'left';
    ctx.textBaseline = 'top';
    ctx.fillText(fitText(ctx, title, width - 4), 2, 2);
  }
  ctx.font = FONT;
  ctx.fillStyle = c.text;
  ctx.textAlign = 'center';
  ctx.textBaseline = 'top';
  let lastRight = -Infinity;
  const drawn = [];
  for (const t of scale.ticks) {
    const x = side + position(t) * (span - 1);
    const text = label(t);
    const half = ctx.measureText(text).width / 2;
    const at = Math.min(width - half - 1, Math.max(half + 1, x));
    if (at - half < lastRight + 8) continue;
    lastRight = at + half;
    ctx.fillRect(Math.round(x), barTop + barH, 1, 4);
    ctx.fillText(text, at, barTop + barH + 5);
    drawn.push(text);
  }
  Object.assign(canvas.dataset, { title, scale: scale.kind, labels: JSON.stringify(drawn) });
}
