// esbuild does not follow new URL('…', import.meta.url), so numdecode's worker and .wasm files are
// entry points of their own, written next to the bundle where numdecode looks for them. ESM output
// with splitting keeps each format's wasm module (each build) in its own chunk.
export default {
  entryPoints: [
    'main.js',
    { in: 'numdecode/worker/worker.js', out: 'worker' },
    ...['pco', 'pco-encode', 'alp', 'bpcells'].flatMap((format) =>
      ['simd', 'scalar'].map((build) => ({ in: `numdecode/dist/numdecode-${format}-${build}.wasm`, out: `numdecode-${format}-${build}` })),
    ),
  ],
  loader: { '.wasm': 'copy' },
  bundle: true,
  format: 'esm',
  splitting: true,
  outdir: 'dist',
};
