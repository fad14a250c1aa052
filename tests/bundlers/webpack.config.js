// webpack 5 needs nothing for numdecode: it follows new URL('…', import.meta.url) to the .wasm
// files and new Worker(new URL('./worker.js', import.meta.url)) to the worker, and leaves alone
// the Node built-ins numdecode imports only in Node (marked webpackIgnore).
export default {
  mode: 'production',
  entry: './main.js',
};
