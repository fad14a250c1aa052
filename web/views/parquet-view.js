// Parquet view (issue 15): the schema with encodings and sizes per column (numdecode/parquet
// inspect), a plot of a FLOAT / DOUBLE column decoded in the worker (readPages here, ALP pages
// decoded there), and the column's pages, each ALP page openable in the ALP view.
import { $, el, fillGrid, fillKv, formatBytes, formatInt } from '../lib/dom.js';
import { renderValuesPanel } from './values-panel.js';
import { toRestore, updateView } from '../lib/view-state.js';

const parquet = () => import('../../js/parquet.js');

// Per top-level column: the sum over row groups of what inspect() lists per column chunk.
function columnSummary(info) {
  const byName = new Map(info.schema.map((s) => [s.name, { ...s, codecs: new Set(), encodings: new Set(), pages: 0, alpPages: 0, exceptions: 0, compressed: 0, uncompressed: 0, values: 0 }]));
  for (const g of info.rowGroups) {
    for (const c of g.columns) {
      const s = byName.get(c.column);
      s.codecs.add(c.codec);
      for (const e of c.encodings) s.encodings.add(e);
      s.compressed += c.compressedBytes;
      s.uncompressed += c.uncompressedBytes;
      s.values += c.numValues;
      for (const p of c.pages) {
        if (p.type === 'data v1' || p.type === 'data v2') s.pages++;
        if (p.alp) {
          s.alpPages++;
          s.exceptions += p.alp.exceptions ?? 0;
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
  const { inspect, readPages } = await parquet();
  setStage(`reading the footer and page headers of ${name}`);
  const info = await inspect(source);
  const section = $('view-parquet');
  const columns = columnSummary(info);
  const floats = columns.filter((c) => c.type === 'FLOAT' || c.type === 'DOUBLE');
  const facts = el('table', { class: 'kv' });
  fillKv(facts, [
    ['file size', formatBytes(info.size), 'size'],
    ['rows', formatInt(info.numRows), 'rows'],
    ['row groups', String(info.rowGroups.length), 'row-groups'],
    ['written by', info.createdBy ?? 'not recorded', 'created-by'],
  ]);
  const schema = el('table', { class: 'grid', id: 'pq-schema' });
  fillGrid(
    schema,
    ['column', 'type', 'repetition', 'codec', 'encodings', 'data pages', 'ALP pages', 'exceptions', 'compressed', 'uncompressed', 'bits/value'],
    columns.map((c) => [
      c.name, c.type ?? '', c.repetition ?? '', [...c.codecs].join(', '), [...c.encodings].join(', '), String(c.pages),
      String(c.alpPages), c.alpPages ? formatInt(c.exceptions) : '–', formatBytes(c.compressed), formatBytes(c.uncompressed),
      c.values ? ((c.compressed * 8) / c.values).toFixed(2) : '–',
    ]),
  );
  const picker = el('select', { id: 'pq-column' }, floats.map((c) => el('option', { value: c.name }, `${c.name} (${c.type})`)));
  const pagesTable = el('table', { class: 'grid', id: 'pq-pages' });
  const valuesCard = el('div', { class: 'card values-panel', id: 'pq-values' });
  // One card under another at the page's full width: beside the plot the wide tables showed half their columns.
  section.replaceChildren(
    el('h2', { id: 'parquet-title' }, `Parquet: ${name}`),
    el('div', { class: 'card' },
      el('h3', {}, 'File'), facts,
      el('div', { class: 'row' },
        floats.length ? el('label', {}, 'Plotted column ', picker) : el('p', { class: 'muted' }, 'This file has no FLOAT or DOUBLE column to plot.'))),
    valuesCard,
    el('div', { class: 'card' }, el('h3', {}, 'Pages of the plotted column'), el('div', { class: 'table-wrap' }, pagesTable)),
    el('div', { class: 'card' }, el('h3', {}, 'Columns'), el('div', { class: 'table-wrap' }, schema)),
  );

  async function showColumn(column) {
    const col = floats.find((c) => c.name === column);
    setStage(`reading the pages of ${column}`);
    const { dtype, pages } = await readPages(source, { column });
    const payloads = new Map(pages.filter((p) => p.alp).map((p) => [`${p.rowGroup}/${p.page}`, p.alp]));
    // The worker gets copies: the payloads stay here for the ALP view.
    const message = pages.map((p) => ({
      numRows: p.numRows,
      valid: p.valid,
      alp: p.alp ? p.alp.slice().buffer : undefined,
      values: p.values ? p.values.slice().buffer : undefined,
    }));
    const transfer = message.flatMap((p) => [p.alp, p.values].filter(Boolean));
    const result = await ask({ op: 'parquet-column', dtype, pages: message }, { transfer, onProgress: setStage, replace: true });
    renderValuesPanel(valuesCard, result, {
      baseName: `${name.replace(/\.[^.]*$/, '')}-${column}`,
      requestCsv,
      parts: { name: 'page', lengths: pages.map((p) => p.numRows) },
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
        const payload = r.page === null ? undefined : payloads.get(`${r.rowGroup}/${r.page}`);
        const open = payload
          ? el('button', {
              type: 'button',
              dataset: { alpPage: `${r.rowGroup}/${r.page}` },
              onclick: () => run(`Could not open page ${r.page}`, () => openAlpPage(`${name} ${column} row group ${r.rowGroup} page ${r.page}`, payload, dtype)),
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

  picker.addEventListener('change', () => run(`Could not read ${picker.value}`, () => showColumn(picker.value)));
  // The column a link asks for (lib/view-state.js), else the first one.
  const first = floats.find((c) => c.name === toRestore('column')) ?? floats[0];
  if (first) {
    picker.value = first.name;
    await showColumn(first.name);
  }
  document.body.dataset.parquetColumn = first?.name ?? '';
}
