// Module worker for io-faults-browser.html: inside a Worker a Blob reads synchronously
// (FileReaderSync), so openFile(blob).readSync exists there and only there.
import { openFile } from '/js/io/index.js';

self.onmessage = async ({ data: blob }) => {
  try {
    const f = openFile(blob);
    const sync = Array.from(f.readSync(3, 11));
    const async_ = Array.from(await f.read(blob.size - 4, blob.size));
    let past = null;
    try {
      f.readSync(0, blob.size + 1);
    } catch (err) {
      past = { name: err.name, code: err.code, message: err.message };
    }
    self.postMessage({ hasReadSync: typeof f.readSync === 'function', sync, async: async_, past, stats: f.stats });
  } catch (err) {
    self.postMessage({ error: `${err.name}: ${err.message}` });
  }
};
