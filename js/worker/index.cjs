'use strict';
// CommonJS entry of numdecode/worker: createWorkerPool is asynchronous, so it loads the ES module
// with import() first. load() resolves to the ES module (WorkerPool, planBatches, ...).

function load() {
  return import('./index.js');
}

async function createWorkerPool(options) {
  return (await load()).createWorkerPool(options);
}

module.exports = { createWorkerPool, load };
