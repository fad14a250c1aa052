// The address bar always holds the view on show, so that a copied link opens the same view:
//   ?open=URL&format=F            the file, directory or store, and how it was read
//   &array=/t2m&slice=5,:,:&roles=index,y,x    Zarr: the array, the slice and each dimension's role
//   &vector=K&block=R0,RN,C0,CN   BPCells: the column (or row) and the heatmap block
//   &column=NAME                  Parquet: the plotted column
//   &view=I0-I1                   the line plot's zoom (values I0 to I1 - 1)
// A file read from the reader's disk has no address: the bar then holds none, and the page says so.

const KEYS = ['open', 'format', 'hints', 'array', 'slice', 'roles', 'vector', 'block', 'column', 'view'];
let restoring = null; // the view asked for by the page's address at load, until its open is done

// The query as people read it: '/', ',' and ':' are allowed there as they are (RFC 3986), so they stay.
function queryText(params) {
  const keep = (text) => encodeURIComponent(text).replace(/%2F/gi, '/').replace(/%2C/gi, ',').replace(/%3A/gi, ':');
  return [...params].map(([k, v]) => `${keep(k)}=${keep(v)}`).join('&');
}

function write(params) {
  const query = queryText(params);
  const url = `${location.pathname}${query ? `?${query}` : ''}${location.hash}`;
  if (url !== `${location.pathname}${location.search}${location.hash}`) history.replaceState(null, '', url);
}

/** The view the page's address asks for ({open, format, ...} as strings), kept for the open it starts. */
export function viewToRestore() {
  const params = new URLSearchParams(location.search);
  restoring = params.get('open') ? params : null;
  return restoring ? Object.fromEntries(KEYS.filter((k) => params.has(k)).map((k) => [k, params.get(k)])) : null;
}

/** A part of the view to restore (e.g. 'slice'), while the open the address asked for is going on. */
export function toRestore(key) {
  return restoring?.get(key) ?? undefined;
}

/** The open the address asked for is done (or failed): later opens start from their defaults. */
export function restored() {
  restoring = null;
}

/** A new file is on show: the address names it (a URL), or nothing (a local file: no link restores it). */
export function showOpened({ open, format, hints } = {}) {
  const params = new URLSearchParams();
  if (open) {
    params.set('open', open);
    if (format && format !== 'auto') params.set('format', format);
    if (hints?.length) params.set('hints', hints.join(','));
  }
  write(params);
  document.body.dataset.link = open ? 'yes' : 'local';
}

/** Part of the view changed: {key: value} sets, {key: null} removes. Only while a URL is on show. */
export function updateView(changes) {
  const params = new URLSearchParams(location.search);
  if (!params.get('open')) return;
  for (const [key, value] of Object.entries(changes)) {
    if (value === null || value === undefined) params.delete(key);
    else params.set(key, String(value));
  }
  write(params);
}

/** A line plot's zoom for the address: 'I0-I1', or null for the whole range. */
export function viewText([a, b], length) {
  const i0 = Math.max(0, Math.floor(a));
  const i1 = Math.min(length, Math.ceil(b));
  return i0 === 0 && i1 >= length ? null : `${i0}-${i1}`;
}

/** [i0, i1] from 'I0-I1', or null. */
export function parseViewText(text) {
  const m = /^(\d+)-(\d+)$/.exec(text ?? '');
  return m && Number(m[2]) > Number(m[1]) ? [Number(m[1]), Number(m[2])] : null;
}
