// Rollup: node-resolve finds numdecode in node_modules; importMetaAssets copies the .wasm files
// the wasm glue (numdecode-*.mjs) names with new URL('…', import.meta.url); numdecode's worker is
// a second input, written as worker.js next to the bundle, where numdecode looks for it.
import { nodeResolve } from '@rollup/plugin-node-resolve';
import { importMetaAssets } from '@web/rollup-plugin-import-meta-assets';

export default {
  input: { main: 'main.js', worker: 'numdecode/worker/worker.js' },
  output: { dir: 'dist', format: 'es' },
  plugins: [nodeResolve({ browser: true }), importMetaAssets({ include: '**/numdecode-*.mjs' })],
};
