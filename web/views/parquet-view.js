// Parquet view (issue 15): the schema with encodings and sizes per column (the footer, from
// numdecode/parquet's open()), a plot of a FLOAT / DOUBLE column (read(), summarised in the
// worker), and that column's pages (inspect() of the column alone), each ALP page openable in the
// ALP view. Opening a file fetches its footer and one column, not every column's pages.
import { $, el, fillGrid, fillKv, formatBytes, formatInt, plural } from '../lib/dom.js';
import { countRoundTrips } from '../lib/round-trips.js';
import { renderValuesPanel } from './values-panel.js';
import { toRestore, updateView } from '../lib/view-state.js';

const parquet = () => import('../../js/parquet.js');

// The file on show: its footer, read once, and its cache serve every read of the view (a column
// picked after inspect() fetched the chunks costs no request, nor does an ALP page's view).
let shown = null;
let counterTimer = null;

// What the file on show has fetched, over the network only (bytes from the disk have no requests):
// requests and bytes from the reader's own count, round trips from the browser's timings.
function startCounter(file, roundTrips) {
  clearInterval(counterTimer);
  counterTimer = null;
  if (!roundTrips) return;
  const update = () => {
    if ($('view-parquet').hidden) return; // an ALP page's view is on show: nothing to count meanwhile
    const { requests, bytes } = file.stats;
    const trips = roundTrips();
    $('pq-requests').textContent = formatInt(requests);
    $('pq-requests-word').textContent = plural(requests, ' request in ', ' requests in ');
    $('pq-round-trips').textContent = formatInt(trips);
    $('pq-round-trips-word').textContent = plural(trips, ' round trip, ', ' round trips, ');
    $('pq-bytes').textContent = formatBytes(bytes);
  };
  counterTimer = setInterval(update, 250);
  update();
}

// Per leaf column: the sum over row groups of what the footer lists per column chunk, and of its
// pages where they have been read (`pagesOf`: column -> inspect() of that column; a column not
// plotted yet has no pages read: over a network, reading every column's pages would fetch the
// whole file before anything is shown).
function columnSummary(file, pagesOf) {
  const byName = new Map(file.schema.map((s) => [s.name, { ...s, codecs: new Set(), encodings: new Set(), pages: null, alpPages: 0, exceptions: 0, compressed: 0, uncompressed: 0, values: 0 }]));
  for (const g of file.rowGroups) {
    for (const c of g.columns) {
      const s = byName.get(c.column);
      s.codecs.add(c.codec);
      for (const e of c.encodings) s.encodings.add(e);
      s.compressed += c.compressedBytes;
      s.uncompressed += c.uncompressedBytes;
      s.values += c.numValues;
    }
  }
  for (const [name, info] of pagesOf) {
    const s = byName.get(name);
    s.pages = 0;
    for (const g of info.rowGroups) {
      for (const c of g.columns) {
        for (const p of c.pages) {
          if (p.type === 'data v1' || p.type === 'data v2') s.pages++;
          if (p.alp) {
            s.alpPages++;
            s.exceptions += p.alp.exceptions ?? 0;
          }
        }
      }
    }
  }
  return [...byName.values()];
}

function pageRows(info, column) {
  const rows = [];
  for (const g of info.rowGroups) {
    const c = g.columns.find((x) => x.column === column);
    let dataIndex = 0;
    for (const p of c?.pages ?? []) {
      const isData = p.type === 'data v1' || p.type === 'data v2';
      rows.push({ rowGroup: g.index, page: isData ? dataIndex++ : null, codec: c.codec, ...p });
    }
  }
  return rows;
}

/**
 * @param {{name: string, source: string|Uint8Array, setStage: Function, run: Function,
 *   ask: Function, openAlpPage: (name: string, bytes: Uint8Array, dtype: string) => Promise<void>,
 *   requestCsv: () => Promise<Blob>}} options
 */
export async function renderParquet({ name, source, setStage, run, ask, openAlpPage, requestCsv }) {
  const { open } = await parquet();
  setStage(`reading the footer of ${name}`);
  stopParquet(); // the file shown before, if any
  // Counted from before the footer's request.
  const roundTrips = typeof source === 'string' ? countRoundTrips(new URL(source, location.href).href) : null;
  // A cache that holds a large column chunk between inspect() and read() of its column.
  // A File's bytes are named by the file's name in errors (a URL names itself).
  const file = await open(source, { cacheBytes: 64 << 20, ...(typeof source === 'string' ? {} : { name }) });
  shown = file;
  const pagesOf = new Map(); // column -> its inspect(): its pages, read when it is first plotted
  const section = $('view-parquet');
  const floats = columnSummary(file, pagesOf).filter((c) => c.type === 'FLOAT' || c.type === 'DOUBLE');
  const facts = el('table', { class: 'kv' });
  fillKv(facts, [
    ['file size', formatBytes(file.size), 'size'],
    ['rows', formatInt(file.numRows), 'rows'],
    ['row groups', String(file.rowGroups.length), 'row-groups'],
    ['written by', file.createdBy ?? 'not recorded', 'created-by'],
  ]);
  const schema = el('table', { class: 'grid', id: 'pq-schema' });
  const fillSchema = () =>
    fillGrid(
      schema,
      ['column', 'type', 'repetition', 'codec', 'encodings', 'data pages', 'ALP pages', 'exceptions', 'compressed', 'uncompressed', 'bits/value'],
      columnSummary(file, pagesOf).map((c) => {
        const read = c.pages !== null;
        return [
          c.name, c.type ?? '', c.repetition ?? '', [...c.codecs].join(', '), [...c.encodings].join(', '), read ? String(c.pages) : '–',
          read ? String(c.alpPages) : '–', read && c.alpPages ? formatInt(c.exceptions) : '–', formatBytes(c.compressed), formatBytes(c.uncompressed),
          c.values ? ((c.compressed * 8) / c.values).toFixed(2) : '–',
        ];
      }),
    );
  fillSchema();
  const picker = el('select', { id: 'pq-column' }, floats.map((c) => el('option', { value: c.name }, `${c.name} (${c.type})`)));
  const pagesTable = el('table', { class: 'grid', id: 'pq-pages' });
  const valuesCard = el('div', { class: 'card values-panel', id: 'pq-values' });
  // One card under another at the page's full width: beside the plot the wide tables showed half their columns.
  // Over the network: requests, round trips and bytes so far (the footer, then each plotted
  // column's chunks, read once for its page headers and values; an ALP page's view costs nothing).
  const counter = typeof source === 'string'
    ? el('p', { class: 'fetched', 'aria-live': 'off' }, 'Fetched so far: ', el('strong', { id: 'pq-requests' }, '0'), el('span', { id: 'pq-requests-word' }, ' requests in '),
      el('strong', { id: 'pq-round-trips' }, '0'), el('span', { id: 'pq-round-trips-word' }, ' round trips, '), el('strong', { id: 'pq-bytes' }, '0 B'))
    : '';
  section.replaceChildren(
    el('h2', { id: 'parquet-title' }, `Parquet: ${name}`),
    el('div', { class: 'card' },
      el('h3', {}, 'File'), facts, counter,
      el('div', { class: 'row' },
        floats.length ? el('label', {}, 'Plotted column ', picker) : el('p', { class: 'muted' }, 'This file has no FLOAT or DOUBLE column to plot.'))),
    valuesCard,
    el('div', { class: 'card' }, el('h3', {}, 'Pages of the plotted column'), el('div', { class: 'table-wrap' }, pagesTable)),
    el('div', { class: 'card' }, el('h3', {}, 'Columns'), el('div', { class: 'table-wrap' }, schema),
      el('p', { class: 'muted small', id: 'pq-schema-note' }, 'Sizes and encodings come from the footer; pages are read for each column as it is plotted ("–" until then), so that opening a file fetches only its footer and one column.')),
  );

  // The column's values come from read() (numdecode's fast path: every page decoded straight into
  // one array); the worker only summarizes them. An ALP page's payload is fetched (readPages)
  // when its ALP view is asked for.
  // A column that cannot be read leaves nothing of the one before on show under its name.
  let shownColumn = null;
  async function showColumn(column) {
    try {
      await showColumnValues(column);
      shownColumn = column;
    } catch (err) {
      // A read another view's job took over (a page's ALP view) is no failure: the picker goes
      // back to the column on show.
      if (err?.message === 'superseded') {
        if (shownColumn !== null) picker.value = shownColumn;
      } else {
        valuesCard.replaceChildren(el('h3', {}, 'Values'), el('p', { class: 'muted', id: 'pq-values-failed' }, `${column} could not be read: see the message above.`));
        pagesTable.replaceChildren();
      }
      throw err;
    }
  }

  async function showColumnValues(column) {
    const col = floats.find((c) => c.name === column);
    if (!pagesOf.has(column)) {
      setStage(`reading the page headers of ${column}`);
      pagesOf.set(column, await file.inspect({ columns: [column] }));
      fillSchema();
    }
    const info = pagesOf.get(column);
    setStage(`reading ${column}`);
    const t0 = performance.now();
    const got = await file.read({ columns: [column] });
    const readMs = performance.now() - t0;
    const { values, valid } = got.columns[column];
    const dtype = values instanceof Float32Array ? 'f32' : 'f64';
    const whole = values.byteOffset === 0 && values.byteLength === values.buffer.byteLength ? values : values.slice();
    const message = [{ numRows: got.numRows, valid, values: whole.buffer }];
    const result = await ask({ op: 'parquet-column', dtype, pages: message }, { transfer: [whole.buffer], onProgress: setStage, replace: true });
    result.decodeMs = readMs; // read and decode, here
    const dataPages = pageRows(info, column).filter((r) => r.page !== null);
    renderValuesPanel(valuesCard, result, {
      baseName: `${name.replace(/\.[^.]*$/, '')}-${column}`,
      requestCsv,
      parts: { name: 'page', lengths: dataPages.map((p) => p.numValues) },
      valueName: `${column} (${dtype})`,
      extra: [
        ['column', `${column} (${col.type})`, 'column'],
        ['nulls', formatInt(result.nulls), 'nulls'],
      ],
    });
    updateView({ column });
    const rows = pageRows(info, column);
    fillGrid(
      pagesTable,
      ['', 'row group', 'page', 'type', 'encoding', 'values', 'nulls', 'compressed', 'ALP layout', 'vectors', 'exceptions', 'bits/value'],
      rows.map((r) => {
        const open = r.alp && r.page !== null
          ? el('button', {
              type: 'button',
              dataset: { alpPage: `${r.rowGroup}/${r.page}` },
              onclick: () => run(`Could not open page ${r.page}`, async () => {
                // Through the open file (its chunk is in the cache since inspect()), the page's row group only.
                const rowStart = info.rowGroups.slice(0, r.rowGroup).reduce((n, g) => n + g.numRows, 0);
                const rowEnd = rowStart + info.rowGroups[r.rowGroup].numRows;
                const { dtype, pages } = await file.readPages({ column, rowStart, rowEnd });
                const page = pages.find((p) => p.rowGroup === r.rowGroup && p.page === r.page);
                await openAlpPage(`${name} ${column} row group ${r.rowGroup} page ${r.page}`, page.alp, dtype);
              }),
            }, 'ALP view')
          : '';
        // The page's way into the ALP view comes first, so that it is never scrolled out of reach.
        return [
          open, String(r.rowGroup), r.page === null ? '–' : String(r.page), r.type, r.encoding ?? '', formatInt(r.numValues ?? 0), r.numNulls === undefined ? '–' : formatInt(r.numNulls),
          formatBytes(r.compressedBytes), r.alp?.layout ?? '', r.alp ? String(r.alp.numVectors) : '', r.alp ? formatInt(r.alp.exceptions) : '',
          r.alp?.bitsPerValue ? r.alp.bitsPerValue.toFixed(2) : '',
        ];
      }),
    );
  }

  startCounter(file, roundTrips);
  picker.addEventListener('change', () => run(`Could not read ${picker.value}`, () => showColumn(picker.value)));
  // The column a link asks for (lib/view-state.js), else the first one.
  const first = floats.find((c) => c.name === toRestore('column')) ?? floats[0];
  if (first) {
    picker.value = first.name;
    await showColumn(first.name);
  }
  document.body.dataset.parquetColumn = first?.name ?? '';
}

/** Another format's view is on show: the file on show is closed (its cache let go), its counter stopped. */
export function stopParquet() {
  clearInterval(counterTimer);
  counterTimer = null;
  shown?.close();
  shown = null;
}
