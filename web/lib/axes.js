// Axes for the demo's canvas charts: nice tick positions, tick labels, axis names and the frame
// around the plot area. Every chart names its axes: a plot without them leaves a reader guessing
// what was plotted against what.
import { formatApprox } from './values.js';
import { colors } from './theme.js';

/** Space around the plot area, in CSS pixels: room for tick labels and the axis names (the left grows with the labels). */
export const PAD = { left: 78, right: 14, top: 12, bottom: 42 };

/**
 * Where the last drawAxes() put a canvas's plot area: {left, width} in CSS pixels (also in the
 * canvas's data-plot-left and data-plot-width, for scripts that point at a value).
 */
export function plotArea(canvas) {
  const left = Number(canvas.dataset.plotLeft);
  const width = Number(canvas.dataset.plotWidth);
  const rect = canvas.getBoundingClientRect();
  return Number.isFinite(left) && Number.isFinite(width) ? { left, width } : { left: PAD.left, width: rect.width - PAD.left - PAD.right };
}
/**
 * Sizes a canvas to its CSS box at device resolution (at least 50 × minHeight CSS pixels; its
 * backing store kept when the size is unchanged) and clears it; returns the 2D context and CSS size.
 */
export function sizeCanvas(canvas, minHeight = 50) {
  const dpr = window.devicePixelRatio || 1;
  const width = Math.max(50, canvas.clientWidth);
  const height = Math.max(minHeight, canvas.clientHeight);
  if (canvas.width !== Math.round(width * dpr) || canvas.height !== Math.round(height * dpr)) {
    canvas.width = Math.round(width * dpr);
    canvas.height = Math.round(height * dpr);
  }
  const ctx = canvas.getContext('2d');
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  ctx.clearRect(0, 0, width, height);
  return { ctx, width, height };
}

export const FONT = '12px system-ui, sans-serif';
export const NAME_FONT = '600 12px system-ui, sans-serif';

/** Round-numbered ticks covering [lo, hi], about `count` of them. */
export function niceTicks(lo, hi, count) {
  if (!(hi > lo)) return [lo];
  const raw = (hi - lo) / Math.max(1, count);
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * mag).find((s) => s >= raw) ?? 10 * mag;
  const ticks = [];
  for (let t = Math.ceil(lo / step) * step; t <= hi + step * 1e-9; t += step) ticks.push(Math.abs(t) < step * 1e-9 ? 0 : t);
  return ticks;
}

/** Compact labels for value positions: 1500, 250k, 1.5M. */
export function indexLabel(t) {
  const a = Math.abs(t);
  if (a >= 1e6) return `${Number((t / 1e6).toPrecision(4))}M`;
  if (a >= 1e4) return `${Number((t / 1e3).toPrecision(4))}k`;
  return String(t);
}

/** Shortens text to fit `width` pixels with an ellipsis. */
export function fitText(ctx, text, width) {
  if (ctx.measureText(text).width <= width) return text;
  let s = text;
  while (s.length > 1 && ctx.measureText(`${s}…`).width > width) s = s.slice(0, -1);
  return `${s}…`;
}

/** The x axis name, centred under the plot area. */
export function drawXName(ctx, name, left, width, y) {
  if (!name) return;
  const c = colors();
  ctx.save();
  ctx.font = NAME_FONT;
  ctx.fillStyle = c.text;
  ctx.textAlign = 'center';
  ctx.textBaseline = 'bottom';
  ctx.fillText(fitText(ctx, name, width), left + width / 2, y);
  ctx.restore();
}

/** The y axis name, turned a quarter left, centred beside the plot area. */
export function drawYName(ctx, name, x, top, height) {
  if (!name) return;
  const c = colors();
  ctx.save();
  ctx.font = NAME_FONT;
  ctx.fillStyle = c.text;
  ctx.translate(x, top + height / 2);
  ctx.rotate(-Math.PI / 2);
  ctx.textAlign = 'center';
  ctx.textBaseline = 'top';
  ctx.fillText(fitText(ctx, name, height), 0, 0);
  ctx.restore();
}

/**
 * Grid, tick labels, frame and axis names of a plot area [x0, x1] x [y0, y1] inside a canvas.
 * @param {{xLabel?: (t: number) => string, yLabel?: (t: number) => string, integerX?: boolean,
 *   xName?: string, yName?: string}} [options] xLabel/yLabel: text of a tick (default: compact numbers)
 * @returns {{left: number, pw: number, ph: number}} where the plot area starts, and its size
 */
export function drawAxes(ctx, width, height, x0, x1, y0, y1, { xLabel = indexLabel, yLabel = formatApprox, integerX = true, xName, yName } = {}) {
  const c = colors();
  ctx.font = FONT;
  const ph = height - PAD.top - PAD.bottom;
  const yTicks = niceTicks(y0, y1, Math.max(2, Math.floor(ph / 40)));
  // Room for the widest y label (a date needs more than a count), within reason.
  const widest = yTicks.reduce((w, t) => Math.max(w, ctx.measureText(yLabel(t)).width), 0);
  const left = Math.round(Math.min(180, Math.max(PAD.left, widest + 30)));
  const pw = width - left - PAD.right;
  Object.assign(ctx.canvas.dataset, { plotLeft: String(left), plotWidth: String(pw), xName: xName ?? '', yName: yName ?? '' });
  ctx.strokeStyle = c.grid;
  ctx.fillStyle = c.text;
  ctx.lineWidth = 1;
  ctx.textAlign = 'right';
  ctx.textBaseline = 'middle';
  for (const t of yTicks) {
    const y = PAD.top + ph - ((t - y0) / (y1 - y0 || 1)) * ph;
    if (y < PAD.top - 1 || y > PAD.top + ph + 1) continue;
    ctx.beginPath();
    ctx.moveTo(left, Math.round(y) + 0.5);
    ctx.lineTo(left + pw, Math.round(y) + 0.5);
    ctx.stroke();
    ctx.fillText(fitText(ctx, yLabel(t), left - 24), left - 6, y);
  }
  ctx.textAlign = 'center';
  ctx.textBaseline = 'top';
  let lastRight = -Infinity;
  for (const t of niceTicks(x0, x1, Math.max(2, Math.floor(pw / 110)))) {
    if (integerX && !Number.isInteger(t)) continue;
    const x = left + ((t - x0) / (x1 - x0 || 1)) * pw;
    if (x < left - 1 || x > left + pw + 1) continue;
    const text = xLabel(t);
    // Keep the first and last labels inside the canvas, and labels from overlapping.
    const half = ctx.measureText(text).width / 2;
    const at = Math.min(width - half - 2, Math.max(half + 2, x));
    if (at - half < lastRight + 6) continue;
    lastRight = at + half;
    ctx.fillText(text, at, PAD.top + ph + 5);
  }
  ctx.strokeStyle = c.axis;
  ctx.strokeRect(left + 0.5, PAD.top + 0.5, pw, ph);
  drawXName(ctx, xName, left, pw, height - 2);
  drawYName(ctx, yName, 2, PAD.top, ph);
  return { left, pw, ph };
}
