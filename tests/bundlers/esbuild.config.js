// esbuild does not follow new URL('…', import.meta.url), so numdecode's worker and .wasm files are
// entry points of their own, written next to the bundle where numdecode looks for them. ESM output
// with splitting keeps each wasm build in its own chunk.
export default {
  entryPoints: [
    'main.js',
    { in: 'numdecode/worker/worker.js', out: 'worker' },
    { in: 'numdecode/dist/numdecode-simd.wasm', out: 'numdecode-simd' },
    { in: 'numdecode/dist/numdecode-scalar.wasm', out: 'numdecode-scalar' },
  ],
  loader: { '.wasm': 'copy' },
  bundle: true,
  format: 'esm',
  splitting: true,
  outdir: 'dist',
};
