// What a Vite user adds for numdecode: workers as ES modules (numdecode's worker loads its wasm
// build with a dynamic import, which Vite's default 'iife' worker format cannot split).
export default {
  worker: { format: 'es' },
};
