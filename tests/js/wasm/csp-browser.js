// Runs in csp-browser.html under `script-src 'self' 'wasm-unsafe-eval'` (no eval, no new Function):
// decodes the corpus files the test names and reports SHA-256 digests of the decoded bytes.
import { alp, bpcells, init, pco } from '../../../js/index.js';

async function sha256(view) {
  const bytes = new Uint8Array(view.buffer, view.byteOffset, view.byteLength);
  const digest = await crypto.subtle.digest('SHA-256', bytes.slice());
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, '0')).join('');
}

async function fetchBytes(url) {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
  return new Uint8Array(await response.arrayBuffer());
}

let evalBlocked = false;
try {
  new Function('return 1')(); // eslint-disable-line no-new-func
} catch (err) {
  evalBlocked = err instanceof EvalError;
}

window.runChecks = async ({ pcoFiles, alpPages, matrices, simd }) => {
  await init({ simd });
  const out = { evalBlocked, pco: {}, alp: {}, bpcells: {} };
  for (const name of pcoFiles) out.pco[name] = await sha256(pco.decode(await fetchBytes(`/corpus/pco/${name}`)));
  for (const [name, dtype] of alpPages) out.alp[name] = await sha256(alp.decode(await fetchBytes(`/corpus/alp/${name}`), dtype));
  for (const dir of matrices) {
    const m = await bpcells.open(new URL(`/corpus/bpcells/${dir}/`, location.href).href);
    const r = await m.read();
    out.bpcells[dir] = { index: await sha256(r.index), val: await sha256(r.val), nnz: m.nnz };
  }
  return out;
};
window.pageReady = true;
