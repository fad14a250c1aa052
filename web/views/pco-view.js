// Pco view: the file's structure from pco.inspect() (header -> chunks -> latent variables
// with their bins) beside the decoded values.
import { $, el, fillGrid, formatBytes, formatInt } from '../lib/dom.js';
import { renderValuesPanel } from './values-panel.js';

function params(obj) {
  return Object.entries(obj)
    .filter(([k]) => k !== 'name')
    .map(([k, v]) => `${k} ${Array.isArray(v) ? `[${v.join(', ')}]` : v}`)
    .join(', ');
}

function describeMode(mode) {
  const p = params(mode);
  return p ? `${mode.name} (${p})` : mode.name;
}

function latentDetails(latent) {
  const table = el('table', { class: 'grid' });
  fillGrid(
    table,
    ['bin', 'weight', 'lower', 'offset bits'],
    latent.bins.map((b, i) => [i, formatInt(b.weight), String(b.lower), b.offsetBits]),
  );
  return el('details', {},
    el('summary', {}, el('span', { class: 'k' }, `${latent.key} latent`),
      ` ${latent.latentBits}-bit, ANS size log ${latent.ansSizeLog}, ${latent.bins.length} bin${latent.bins.length === 1 ? '' : 's'}`),
    table);
}

function chunkDetails(chunk, index, open) {
  const [from, to] = chunk.byteRange;
  const bytes = to - from;
  const bits = chunk.n ? ((bytes * 8) / chunk.n).toFixed(2) : '–';
  return el('details', { open, dataset: { chunk: index } },
    el('summary', {}, el('span', { class: 'k' }, `Chunk ${index}`),
      ` ${chunk.dtype}, ${formatInt(chunk.n)} values, ${formatBytes(bytes)}, ${bits} bits/value`),
    el('div', { class: 'facts' },
      el('div', {}, `bytes ${from} to ${to} of the file (${formatInt(bytes)} bytes compressed)`),
      el('div', {}, `mode: ${describeMode(chunk.mode)}`),
      el('div', {}, `delta encoding: ${describeMode(chunk.delta)}`)),
    chunk.latentVars.map(latentDetails));
}

export function renderPco({ name, bytes, result, requestCsv }) {
  const { info } = result;
  const n = info.n ?? result.stats.count;
  const chunkBytes = info.chunks.reduce((s, c) => s + (c.byteRange[1] - c.byteRange[0]), 0);
  const header = el('details', { open: true },
    el('summary', {}, el('span', { class: 'k' }, 'Header'), ` ${formatBytes(bytes.length)} file, ${info.chunks.length} chunk${info.chunks.length === 1 ? '' : 's'}`),
    el('div', { class: 'facts' },
      el('div', {}, `format version ${info.formatVersion.major}.${info.formatVersion.minor}`),
      el('div', {}, `standalone version ${info.standaloneVersion}`),
      el('div', {}, `uniform dtype: ${info.uniformDtype ?? 'not recorded'}`),
      info.nHint !== undefined && info.nHint !== null ? el('div', {}, `value count hint: ${formatInt(info.nHint)}`) : null,
      el('div', {}, `${formatInt(n)} values; ${formatInt(chunkBytes)} bytes in chunks, ${formatInt(bytes.length - chunkBytes)} in headers and footer`)),
    info.chunks.map((c, i) => chunkDetails(c, i, i < 2)));
  $('pco-tree').replaceChildren(header);
  $('pco-title').textContent = `Pco: ${name}`;
  renderValuesPanel($('pco-values'), result, {
    baseName: name.replace(/\.[^.]*$/, '') || 'values',
    requestCsv,
    parts: { name: 'chunk', lengths: result.chunkSizes ?? [] },
    extra: [
      ['file size', formatBytes(bytes.length), 'bytes'],
      ['bits per value', n ? ((bytes.length * 8) / n).toFixed(2) : '–', 'bits'],
      ['chunks', String(info.chunks.length), 'chunks'],
    ],
  });
}
