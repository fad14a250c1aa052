// What a Vite user adds for numdecode: workers as ES modules (numdecode's worker loads its wasm
// build with a dynamic import, which Vite's default 'iife' worker format cannot split), and, for
// the dev server, no pre-bundling of numdecode (pre-bundling moves the wasm glue away from the
// .wasm files its new URL('…', import.meta.url) points at).
export default {
  worker: { format: 'es' },
  optimizeDeps: { exclude: ['numdecode'] },
};
