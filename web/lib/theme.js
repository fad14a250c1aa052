// The page's colours for canvases: read from the CSS custom properties (style.css sets a light and
// a dark set, chosen by prefers-color-scheme), so that plots follow the page when the reader's
// system switches between light and dark. Canvases register a redraw for that moment.

const dark = typeof matchMedia === 'function' ? matchMedia('(prefers-color-scheme: dark)') : null;
let cached = null;
const redraws = new Map(); // canvas -> redraw()

/** True when the page shows its dark colours. */
export function isDark() {
  return Boolean(dark?.matches);
}

/** Canvas colours as CSS colour strings: text, axis, grid, line, band, marker, boundary, nan, hatch, hatchBack, card. */
export function colors() {
  if (cached) return cached;
  const style = getComputedStyle(document.documentElement);
  const v = (name) => style.getPropertyValue(`--${name}`).trim();
  cached = {
    text: v('plot-text'),
    axis: v('plot-axis'),
    grid: v('plot-grid'),
    line: v('plot-line'),
    band: v('plot-band'),
    marker: v('plot-marker'),
    boundary: v('plot-boundary'),
    bar: v('plot-bar'),
    barAlt: v('plot-bar-alt'),
    selected: v('plot-selected'),
    nan: v('plot-nan'),
    hatch: v('plot-hatch'),
    hatchBack: v('plot-hatch-back'),
    card: v('card'),
  };
  return cached;
}

/** [r, g, b] of a CSS colour written as #rrggbb (the form style.css uses for canvas colours). */
export function rgb(hex) {
  const m = /^#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(hex);
  return m ? [parseInt(m[1], 16), parseInt(m[2], 16), parseInt(m[3], 16)] : [128, 128, 128];
}

/** Redraws `canvas` with `redraw` whenever the colour scheme changes (one redraw per canvas, the latest). */
export function redrawOnThemeChange(canvas, redraw) {
  redraws.set(canvas, redraw);
}

dark?.addEventListener('change', () => {
  cached = null;
  for (const [canvas, redraw] of redraws) {
    if (canvas.isConnected) redraw();
    else redraws.delete(canvas);
  }
});
