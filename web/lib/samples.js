// The sample menu: the page's own samples (scripts/make-samples.mjs), then every format of the
// shared test corpus when the server offers it at /corpus/ (scripts/serve.mjs does): Pco, ALP,
// Zarr, Parquet, BPCells directories and BPCells HDF5 files.
import { $, el } from './dom.js';

function option(label, url, format) {
  return el('option', { value: JSON.stringify({ url, format }) }, label);
}

async function fetchJson(url) {
  try {
    const r = await fetch(url);
    return r.ok ? await r.json() : null;
  } catch {
    return null;
  }
}

/** Builds the sample menu: the page's own generated samples, then the corpus if served. */
export async function loadSamples() {
  const groups = [];
  const own = await fetchJson('samples/index.json');
  if (own?.samples?.length) {
    groups.push(el('optgroup', { label: 'Made by this project (scripts/make-samples.mjs)' },
      own.samples.map((s) => option(`${s.file}: ${s.description}`, `samples/${s.file}`, s.format))));
  }
  const [pcoList, alpList, bpList, hdf5List, zarrList, parquetList] = await Promise.all([
    fetchJson('../corpus/pco/manifest.json'),
    fetchJson('../corpus/alp/manifest.json'),
    fetchJson('../corpus/bpcells/manifest.json'),
    fetchJson('../corpus/bpcells-hdf5/manifest.json'),
    fetchJson('../corpus/zarr-pcodec/expected/manifest.json'),
    fetchJson('../corpus/parquet-alp/manifest.json'),
  ]);
  if (Array.isArray(pcoList)) {
    const standalone = pcoList.filter((c) => c.format === 'standalone' || String(c.file).endsWith('.pco'));
    groups.push(el('optgroup', { label: 'Pco test corpus (/corpus/pco)' },
      standalone.map((c) => option(`${c.file}: ${c.description ?? ''}`.slice(0, 110), `../corpus/pco/${c.file}`, 'pco'))));
  }
  if (Array.isArray(alpList)) {
    groups.push(el('optgroup', { label: 'ALP test corpus (/corpus/alp)' },
      alpList.map((c) => option(`${c.file}: ${c.description ?? ''}`.slice(0, 110), `../corpus/alp/${c.file}`, c.dtype === 'float64' ? 'alp-f64' : 'alp-f32'))));
  }
  if (Array.isArray(zarrList)) {
    // One entry per store; its arrays as hints (a store without consolidated metadata cannot list them over HTTP).
    const stores = [...new Set(zarrList.map((a) => a.store))];
    groups.push(el('optgroup', { label: 'Zarr stores with pcodec (/corpus/zarr-pcodec)' },
      stores.map((s) => el('option', {
        value: JSON.stringify({ url: `../corpus/zarr-pcodec/stores/${s}`, format: 'zarr', hints: zarrList.filter((a) => a.store === s).map((a) => a.array) }),
      }, `${s}: ${zarrList.filter((a) => a.store === s).map((a) => a.array).join(', ')}`.slice(0, 110)))));
  }
  if (Array.isArray(parquetList)) {
    groups.push(el('optgroup', { label: 'Parquet files with ALP columns (/corpus/parquet-alp)' },
      parquetList.map((c) => option(`${c.file}: ${c.rows} rows, written by parquet-cpp`, `../corpus/parquet-alp/${c.file}`, 'parquet'))));
  }
  if (Array.isArray(bpList)) {
    groups.push(el('optgroup', { label: 'BPCells matrix directories (/corpus/bpcells)' },
      bpList.map((c) => option(`${c.name}: ${c.description ?? ''}`.slice(0, 110), `../corpus/bpcells/${c.dir}/`, 'bpcells'))));
  }
  if (Array.isArray(hdf5List)) {
    groups.push(el('optgroup', { label: 'BPCells matrices in HDF5 files (/corpus/bpcells-hdf5)' },
      hdf5List.map((c) => option(`${c.name}.h5: ${c.description ?? ''}`.slice(0, 110), `../corpus/bpcells-hdf5/${c.dir}/matrix.h5`, 'hdf5'))));
  }
  if (!groups.length) {
    $('samples').replaceChildren(el('option', { value: '' }, 'no samples found (run npm run demo)'));
    return null;
  }
  $('samples').replaceChildren(el('option', { value: '' }, 'choose a sample…'), ...groups);
  return own?.default ?? null;
}
