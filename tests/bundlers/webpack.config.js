// webpack 5 follows new URL('…', import.meta.url) to numdecode's .wasm files and
// new Worker(new URL('./worker.js', import.meta.url)) to its worker by itself. The one line it
// needs: leave out the Node built-ins (node:fs, ...) that numdecode imports only when run in Node.
import webpack from 'webpack';

export default {
  mode: 'production',
  entry: './main.js',
  plugins: [new webpack.IgnorePlugin({ resourceRegExp: /^node:/ })],
};
