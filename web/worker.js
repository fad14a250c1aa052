// Decode worker: runs the numdecode API off the page's main thread so that large files never
// freeze the page. One request at a time; each answer carries the request id.
//   {id, op: 'pco', bytes: ArrayBuffer}
//   {id, op: 'alp', bytes: ArrayBuffer, dtype: 'f32'|'f64'}
//   {id, op: 'parquet-column', dtype, pages}  a Parquet column's pages (ALP payloads decoded here)
//   {id, op: 'csv'}            CSV of the last decoded values, as a Blob
// Answers: {id, type: 'progress', stage, fraction|null}, {id, type: 'result', ...},
//          {id, type: 'error', message, name, code} (the error's class name and code, for the page's messages).
import * as numdecode from '../js/index.js';
import { summarize, histogram, toPlotArray, formatValue } from './lib/values.js';
import { findExceptions } from './lib/alp-exceptions.js';
import { assemblePages } from './lib/parquet-pages.js';

const FIRST_VALUES = 20;
let last = null; // {parts: [{dtype, values}], valid} of the last decode, for CSV (valid: 0 at a Parquet column's nulls)

function progress(id, stage, fraction = null) {
  postMessage({ id, type: 'progress', stage, fraction });
}

function firstValues(parts, valid) {
  const out = [];
  for (const { dtype, values } of parts) {
    for (let i = 0; i < values.length && out.length < FIRST_VALUES; i++) out.push(valid && !valid[out.length] ? 'null' : formatValue(dtype, values[i]));
    if (out.length >= FIRST_VALUES) break;
  }
  return out;
}

// The values of the rows that are not null (for statistics), and the rows with NaN at the nulls
// (for the plot, which leaves them out, and the .bin download).
function splitNulls(values, plot, valid) {
  const present = new values.constructor(values.length);
  const presentPlot = new Float64Array(values.length);
  const rows = values.slice();
  let n = 0;
  for (let i = 0; i < values.length; i++) {
    if (valid[i]) {
      present[n] = values[i];
      presentPlot[n++] = plot[i];
    } else {
      rows[i] = NaN;
      plot[i] = NaN;
    }
  }
  return { present: present.subarray(0, n), presentPlot: presentPlot.subarray(0, n), rows };
}

function concatSameDtype(parts) {
  if (parts.length === 1) return parts[0].values;
  const Type = parts[0].values.constructor;
  const out = new Type(parts.reduce((s, p) => s + p.values.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p.values, at);
    at += p.values.length;
  }
  return out;
}

// Summary, histogram and plot copy of the decoded parts (chunks, or one page). `valid` (a Parquet
// column's, one part): its null rows count in no statistic, are gaps in the plot and NaN in the .bin.
function describeValues(id, parts, valid = null) {
  progress(id, 'computing statistics', 0);
  const total = parts.reduce((s, p) => s + p.values.length, 0);
  const plot = new Float64Array(total);
  let at = 0;
  for (const p of parts) {
    plot.set(toPlotArray(p.dtype, p.values), at);
    at += p.values.length;
  }
  progress(id, 'computing statistics', 0.5);
  const dtypes = [...new Set(parts.map((p) => p.dtype))];
  let stats;
  if (valid) {
    const { present, presentPlot, rows } = splitNulls(parts[0].values, plot, valid);
    stats = summarize(parts[0].dtype, present, presentPlot);
    stats.dtype = parts[0].dtype;
    const hist = histogram(presentPlot);
    progress(id, 'computing statistics', 1);
    return { stats, hist, plot, valid, blob: new Blob([rows], { type: 'application/octet-stream' }), first: firstValues(parts, valid) };
  }
  if (dtypes.length <= 1) {
    const dtype = dtypes[0] ?? null;
    stats = dtype === null ? summarize('f64', plot, plot) : summarize(dtype, concatSameDtype(parts), plot);
    stats.dtype = dtype;
  } else {
    // Chunks of different dtypes (old Pco files may have them): statistics of the values as doubles.
    stats = summarize('f64', plot, plot);
    stats.dtype = dtypes.join('+');
  }
  const hist = histogram(plot);
  progress(id, 'computing statistics', 1);
  const blob = new Blob(parts.map((p) => p.values), { type: 'application/octet-stream' });
  return { stats, hist, plot, blob, first: firstValues(parts) };
}

async function decodePco(id, bytes) {
  progress(id, 'loading the decoder');
  await numdecode.init();
  progress(id, 'reading the header');
  const info = numdecode.pco.inspect(bytes);
  progress(id, info.n === undefined ? 'decoding' : `decoding ${info.n} values`);
  const t0 = performance.now();
  const parts = numdecode.pco.decodeChunks(bytes);
  const decodeMs = performance.now() - t0;
  const described = describeValues(id, parts);
  // A file without chunks says its dtype in its header, when its version records one.
  if (parts.length === 0) described.stats.dtype = info.uniformDtype ?? null;
  last = { parts };
  return { info, decodeMs, chunkSizes: parts.map((p) => p.values.length), ...described };
}

async function decodeAlp(id, bytes, dtype) {
  progress(id, 'loading the decoder');
  await numdecode.init();
  const { alp } = numdecode;
  if (!alp) throw new Error('ALP is not available in this build of numdecode');
  const info = alp.inspect(bytes, dtype);
  const t0 = performance.now();
  let values;
  const bad = info.vectors.find((v) => v.error !== undefined);
  if (bad) {
    // Let the decoder say what is wrong with the page (inspect lists the broken vector).
    values = alp.decode(bytes, dtype);
  } else {
    // Decode in slices of vectors to report progress; the page stays in wasm memory meanwhile.
    values = new (dtype === 'f32' ? Float32Array : Float64Array)(info.numElements);
    const page = alp.open(bytes, dtype);
    try {
      const step = info.vectorSize * 256;
      for (let start = 0; start < info.numElements; start += step) {
        const end = Math.min(info.numElements, start + step);
        values.set(page.decodeRange(start, end), start);
        progress(id, 'decoding', end / info.numElements);
      }
    } finally {
      page.close();
    }
  }
  const decodeMs = performance.now() - t0;
  progress(id, 'finding exceptions');
  const exceptions = findExceptions(values, dtype, info.vectors);
  const parts = [{ dtype, values }];
  const described = describeValues(id, parts);
  last = { parts };
  return { info, decodeMs, exceptions, ...described };
}

// Parquet (issue 15): a column's pages from readPages on the main thread; ALP pages decode here.
async function decodeParquetColumn(id, { dtype, pages }) {
  progress(id, 'loading the decoder');
  await numdecode.init();
  progress(id, `decoding ${pages.length} pages`);
  const t0 = performance.now();
  const { values, nulls, valid } = assemblePages(numdecode.alp, dtype, pages);
  const decodeMs = performance.now() - t0;
  const parts = [{ dtype, values }];
  const described = describeValues(id, parts, valid);
  last = { parts, valid };
  return { decodeMs, nulls, ...described };
}

function csv(id) {
  if (!last) throw new Error('nothing decoded yet');
  const lines = ['value'];
  const total = last.parts.reduce((s, p) => s + p.values.length, 0);
  let done = 0;
  const chunks = [];
  const { valid } = last;
  for (const { dtype, values } of last.parts) {
    for (let i = 0; i < values.length; i++) {
      // a null: an empty field, quoted (a blank line is skipped by pandas and R, shifting the rows)
      lines.push(valid && !valid[i] ? '""' : formatValue(dtype, values[i]));
      if (lines.length >= 65536) {
        chunks.push(lines.join('\n') + '\n');
        lines.length = 0;
        done += 65536;
        progress(id, 'writing CSV', done / total);
      }
    }
  }
  chunks.push(lines.length ? lines.join('\n') + '\n' : '');
  return { blob: new Blob(chunks, { type: 'text/csv' }) };
}

onmessage = async (event) => {
  const { id, op } = event.data;
  try {
    let result;
    if (op === 'pco') result = await decodePco(id, new Uint8Array(event.data.bytes));
    else if (op === 'alp') result = await decodeAlp(id, new Uint8Array(event.data.bytes), event.data.dtype);
    else if (op === 'parquet-column') result = await decodeParquetColumn(id, event.data);
    else if (op === 'csv') result = csv(id);
    else throw new Error(`unknown worker request ${op}`);
    postMessage({ id, type: 'result', ...result }, result.plot ? [result.plot.buffer] : []);
  } catch (err) {
    if (op !== 'csv') last = null; // a failed decode leaves nothing to export
    postMessage({ id, type: 'error', message: err?.message ?? String(err), name: err?.name, code: err?.code });
  }
};
