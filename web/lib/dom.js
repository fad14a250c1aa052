// Tiny DOM helpers: build elements without innerHTML (file contents never become markup).

export const $ = (id) => document.getElementById(id);

/** el('td', {class: 'x', dataset: {stat: 'min'}}, 'text', child, ...) */
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs ?? {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key === 'class') node.className = value;
    else if (key === 'dataset') Object.assign(node.dataset, value);
    else if (key.startsWith('on')) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value === true ? '' : String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : String(child));
  }
  return node;
}

/** Fills a two-column key/value table from [[label, value, testKey?], ...]. */
export function fillKv(table, rows) {
  table.replaceChildren(
    ...rows
      .filter((r) => r && r[1] !== undefined && r[1] !== null)
      .map(([label, value, key]) => el('tr', {}, el('th', { scope: 'row' }, label), el('td', { dataset: key ? { field: key } : undefined }, value))),
  );
}

// A scrolling table box is marked data-overflow="yes" while its table is wider than it (style.css
// then says so): on a phone the scrollbar stays hidden until touched.
function markOverflow(wrap) {
  wrap.dataset.overflow = wrap.scrollWidth > wrap.clientWidth + 1 ? 'yes' : '';
}
const overflowWatch = typeof ResizeObserver === 'function' ? new ResizeObserver((entries) => entries.forEach((e) => markOverflow(e.target))) : null;

/** Fills a table with a header row and body rows (arrays of cells); rowClass(i) optional. */
export function fillGrid(table, headers, rows, rowClass = () => undefined) {
  table.replaceChildren(
    el('thead', {}, el('tr', {}, headers.map((h) => el('th', { scope: 'col' }, h)))),
    el('tbody', {}, rows.map((cells, i) => el('tr', { class: rowClass(i) }, cells.map((c) => el('td', {}, c))))),
  );
  // A table filled before it is placed in its box is looked at once it is.
  const watch = () => {
    const wrap = table.closest('.table-wrap');
    if (!wrap) return false;
    overflowWatch?.observe(wrap);
    markOverflow(wrap);
    return true;
  };
  if (!watch() && typeof requestAnimationFrame === 'function') requestAnimationFrame(watch);
}

export function formatBytes(n) {
  if (!Number.isFinite(n)) return String(n);
  if (n < 1024) return `${n} B`;
  const units = ['KiB', 'MiB', 'GiB'];
  let v = n / 1024;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return `${v.toFixed(v < 10 ? 2 : 1)} ${units[u]}`;
}

export function formatInt(n) {
  return Number(n).toLocaleString('en-US');
}

/** `one` for a count of 1, else `many` ("1 request", "2 requests"). */
export const plural = (n, one, many) => (Number(n) === 1 ? one : many);

/** The count and its noun: "1 request", "1,024 requests". */
export const counted = (n, one, many = `${one}s`) => `${formatInt(n)} ${plural(n, one, many)}`;

/** Saves a Blob under a file name through a temporary link. */
export function download(blob, name) {
  const url = URL.createObjectURL(blob);
  const a = el('a', { href: url, download: name });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10000);
}
