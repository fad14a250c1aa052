// Reads the test store (zarr-store.js) through zarrita's FetchStore, in Node and in the browser
// (zarr-browser.html imports this file too). Returns what was read; the tests compare it.

function errorChain(err) {
  const parts = [];
  for (let e = err; e instanceof Error && parts.length < 5; e = e.cause) parts.push(`${e.name}: ${e.message}`);
  return parts.join(' <- ');
}

// zarrita returns arrays in their stored order (a v2 order "F" array comes with Fortran strides);
// the tests compare in C order.
function inCOrder({ data, shape, stride }) {
  const n = shape.reduce((a, b) => a * b, 1);
  const out = new data.constructor(n);
  const index = new Array(shape.length).fill(0);
  for (let flat = 0; flat < n; flat++) {
    let at = 0;
    for (let d = 0; d < shape.length; d++) at += index[d] * stride[d];
    out[flat] = data[at];
    for (let d = shape.length - 1; d >= 0; d--) {
      if (++index[d] < shape[d]) break;
      index[d] = 0;
    }
  }
  return out;
}

/**
 * @param zarr the zarrita module, with the pcodec codec already registered
 * @param {string} baseUrl the store's URL
 * @param {{arrays: {path: string, dataType: string}[], failures: {path: string}[]}} cases (cases.json)
 */
export async function readStore(zarr, baseUrl, cases) {
  const root = zarr.root(new zarr.FetchStore(baseUrl));
  const arrays = [];
  for (const c of cases.arrays) {
    // zarrita needs Float16Array for float16 arrays (Chromium has it; Node 20 does not).
    if (c.dataType === 'float16' && typeof globalThis.Float16Array !== 'function') {
      arrays.push({ path: c.path, skipped: 'no Float16Array in this engine' });
      continue;
    }
    const arr = await zarr.open(root.resolve(c.path), { kind: 'array' });
    const got = await zarr.get(arr);
    const data = inCOrder(got);
    arrays.push({
      path: c.path,
      dtype: arr.dtype,
      shape: got.shape,
      stride: got.stride,
      typedArray: got.data.constructor.name,
      bytes: new Uint8Array(data.buffer, data.byteOffset, data.byteLength),
    });
  }
  const failures = [];
  for (const c of cases.failures) {
    try {
      const arr = await zarr.open(root.resolve(c.path), { kind: 'array' });
      await zarr.get(arr);
      failures.push({ path: c.path, error: null });
    } catch (err) {
      failures.push({ path: c.path, error: errorChain(err) });
    }
  }
  return { arrays, failures };
}
