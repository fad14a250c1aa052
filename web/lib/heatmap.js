// A heatmap of dense values (any sign, NaN allowed) on a linear colour scale, with a colour bar.
// The BPCells view's drawHeatmap (lib/plot.js) is made for sparse counts (log scale, zero as white),
// which would hide a temperature field; this one maps [lo, hi] linearly and shows NaN as grey.

// Viridis, sampled at 9 stops.
const STOPS = [
  [68, 1, 84], [71, 44, 122], [59, 81, 139], [44, 113, 142], [33, 144, 141],
  [39, 173, 129], [92, 200, 99], [170, 220, 50], [253, 231, 37],
];
const NAN_COLOR = [210, 210, 210];

/** The colour of t in [0, 1]. */
export function colorAt(t) {
  const x = Math.max(0, Math.min(1, t)) * (STOPS.length - 1);
  const k = Math.min(STOPS.length - 2, Math.floor(x));
  const f = x - k;
  return STOPS[k].map((c, j) => Math.round(c + (STOPS[k + 1][j] - c) * f));
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

function sizeCanvas(canvas) {
  const dpr = window.devicePixelRatio || 1;
  const width = Math.max(50, canvas.clientWidth);
  const height = Math.max(30, canvas.clientHeight);
  canvas.width = Math.round(width * dpr);
  canvas.height = Math.round(height * dpr);
  const ctx = canvas.getContext('2d');
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  ctx.clearRect(0, 0, width, height);
  return { ctx, width, height };
}

/**
 * Draws rows x cols numbers (row-major Float64Array, row 0 at the top). Cells are square and
 * fill the canvas's width or height; with more cells than pixels each pixel shows the cell under its top-left corner.
 * @returns {{w: number, h: number, cellWidth: number, cellHeight: number}} image size in CSS pixels
 */
export function drawValueHeatmap(canvas, rows, cols, numbers, range) {
  const { ctx, width, height } = sizeCanvas(canvas);
  const pw = Math.max(1, Math.floor(width - 2));
  const ph = Math.max(1, Math.floor(height - 2));
  // Cells keep their aspect (square) and fill the width or the height.
  const cell = Math.min(pw / Math.max(1, cols), ph / Math.max(1, rows));
  const w = Math.max(1, Math.min(pw, Math.round(cols * cell)));
  const h = Math.max(1, Math.min(ph, Math.round(rows * cell)));
  const [lo, hi] = range ?? [0, 1];
  const span = hi > lo ? hi - lo : 1;
  const img = ctx.createImageData(w, h);
  for (let py = 0; py < h; py++) {
    const r = Math.min(rows - 1, Math.floor((py / h) * rows));
    for (let px = 0; px < w; px++) {
      const c = Math.min(cols - 1, Math.floor((px / w) * cols));
      const v = numbers[r * cols + c];
      const [R, G, B] = Number.isFinite(v) ? colorAt((v - lo) / span) : NAN_COLOR;
      const at = 4 * (py * w + px);
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
  ctx.strokeStyle = '#6b7280';
  ctx.strokeRect(0.5, 0.5, w + 1, h + 1);
  return { w, h, cellWidth: w / cols, cellHeight: h / rows };
}

/** A horizontal colour bar from lo to hi with labels (label(v) formats a number). */
export function drawColorBar(canvas, lo, hi, label = String) {
  const { ctx, width, height } = sizeCanvas(canvas);
  const barH = Math.max(8, height - 18);
  for (let x = 0; x < width; x++) {
    const [R, G, B] = colorAt(x / Math.max(1, width - 1));
    ctx.fillStyle = `rgb(${R},${G},${B})`;
    ctx.fillRect(x, 0, 1, barH);
  }
  ctx.fillStyle = '#374151';
  ctx.font = '11px system-ui, sans-serif';
  ctx.textBaseline = 'top';
  ctx.textAlign = 'left';
  ctx.fillText(label(lo), 0, barH + 3);
  ctx.textAlign = 'right';
  ctx.fillText(label(hi), width, barH + 3);
  ctx.textAlign = 'center';
  ctx.fillText(label((lo + hi) / 2), width / 2, barH + 3);
}
