// The demo's decode worker (web/worker.js), started on first use: answers matched to requests by
// id, progress passed on as it comes, the decoder's error class and code carried back as fields.
let worker = null;
let nextId = 1;
const pending = new Map();

function startWorker() {
  worker = new Worker(new URL('../worker.js', import.meta.url), { type: 'module' });
  worker.onmessage = ({ data }) => {
    const job = pending.get(data.id);
    if (!job) return;
    if (data.type === 'progress') job.onProgress?.(data.stage, data.fraction);
    else {
      pending.delete(data.id);
      if (data.type === 'result') job.resolve(data);
      // The decoder's error class and code cross the worker boundary as fields (lib/messages.js reads them).
      else job.reject(Object.assign(new Error(data.message), { name: data.name ?? 'Error', code: data.code }));
    }
  };
  worker.onerror = (e) => {
    e.preventDefault();
    for (const job of pending.values()) job.reject(new Error(`the decode worker failed: ${e.message || 'could not load it'}`));
    pending.clear();
    worker.terminate();
    worker = null;
  };
}

/** Sends one request to the worker; a new decode replaces (terminates) one still running. */
export function ask(message, { transfer = [], onProgress, replace = false } = {}) {
  if (replace && pending.size) {
    worker?.terminate();
    worker = null;
    for (const job of pending.values()) job.reject(new Error('superseded'));
    pending.clear();
  }
  if (!worker) startWorker();
  const id = nextId++;
  return new Promise((resolve, reject) => {
    pending.set(id, { resolve, reject, onProgress });
    worker.postMessage({ id, ...message }, transfer);
  });
}
