// The small app every bundler test builds (tests/js/packaging/bundlers.test.js): it uses numdecode,
// numdecode/pco, numdecode/zarr and numdecode/worker the way a viewer would, from corpus files the test server
// serves under /corpus/. ?simd=0 forces the scalar build. The test calls window.runNumdecode()
// and compares the SHA-256 of every decoded array with the corpus' expected bytes.
import * as zarr from 'zarrita';
import { init, buildInfo, alp, bpcells } from 'numdecode';
import * as pcoOnly from 'numdecode/pco';
import { registerPcodec } from 'numdecode/zarr';
import { createWorkerPool } from 'numdecode/worker';

async function sha256(typed) {
  const bytes = new Uint8Array(typed.buffer, typed.byteOffset, typed.byteLength);
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes));
  return Array.from(digest, (b) => b.toString(16).padStart(2, '0')).join('');
}

async function fetchBytes(path) {
  const response = await fetch(path);
  if (!response.ok) throw new Error(`HTTP ${response.status} for ${path}`);
  return new Uint8Array(await response.arrayBuffer());
}

window.runNumdecode = async ({ pcoFile, alpFile, alpDtype, bpcellsDir, zarrStore, zarrArray }) => {
  const simd = new URLSearchParams(location.search).get('simd') !== '0';
  // Pco through the light entry first (its module only), then the other formats' modules.
  const { pco } = await pcoOnly.init(simd ? {} : { simd: false });
  await init(simd ? {} : { simd: false });
  const out = { buildInfo: buildInfo() };

  const pcoBytes = await fetchBytes(`/corpus/pco/${pcoFile}`);
  const pcoValues = pco.decode(pcoBytes);
  out.pco = { type: pcoValues.constructor.name, sha256: await sha256(pcoValues) };
  // The encoder's own module (pco-encode), loaded on first use: encoded and decoded again.
  out.pcoEncoded = await sha256(pco.decode(await pco.encode(pcoValues)));

  const alpValues = alp.decode(await fetchBytes(`/corpus/alp/${alpFile}`), alpDtype);
  out.alp = { type: alpValues.constructor.name, sha256: await sha256(alpValues) };

  const matrix = await bpcells.open(new URL(`/corpus/bpcells/${bpcellsDir}/`, location.href).href);
  const { index, val } = await matrix.read();
  out.bpcells = { shape: matrix.shape, index: await sha256(index), val: await sha256(val) };

  const pool = await createWorkerPool({ size: 2, init: simd ? {} : { simd: false } });
  try {
    out.poolBuildInfo = pool.buildInfo;
    const [inWorker] = await pool.decodePcoMany([pcoBytes]);
    out.poolPco = await sha256(inWorker);
    // Zarr chunks decoded by the pool, through zarrita's fetch store.
    registerPcodec(zarr.registry, { pool });
    const store = new zarr.FetchStore(new URL(`/corpus/zarr-pcodec/stores/${zarrStore}`, location.href).href);
    const array = await zarr.open(zarr.root(store).resolve(zarrArray), { kind: 'array' });
    const { data } = await zarr.get(array);
    out.zarr = { type: data.constructor.name, sha256: await sha256(data) };
    out.poolStats = pool.stats();
  } finally {
    await pool.terminate();
  }
  return out;
};

document.getElementById('status').textContent = 'ready';
window.appReady = true;
