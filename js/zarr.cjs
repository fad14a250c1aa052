'use strict';
// CommonJS entry of numdecode/zarr. registerPcodec works as in the ES module: zarrita's registry
// takes loader functions, so the codec module itself is loaded with import() on first use.
// load() resolves to the ES module (PcodecCodec, pcodecCodecEntry, ...).

const PCODEC_CODEC_NAMES = Object.freeze(['numcodecs.pcodec', 'pcodec']);
const PCODEC_ENCODER_FIELDS = Object.freeze([
  'level',
  'mode_spec',
  'delta_spec',
  'paging_spec',
  'delta_encoding_order',
  'equal_pages_up_to',
]);

function load() {
  return import('./zarr.js');
}

function registerPcodec(registry, options = {}) {
  if (registry === null || typeof registry !== 'object' || typeof registry.set !== 'function') {
    throw new TypeError("registerPcodec: pass zarrita's codec registry (const zarr = await import('zarrita'); zarr.registry)");
  }
  let entry = null;
  const loadEntry = async () => (entry ??= (await load()).pcodecCodecEntry(options));
  for (const name of PCODEC_CODEC_NAMES) registry.set(name, loadEntry);
  return registry;
}

module.exports = { PCODEC_CODEC_NAMES, PCODEC_ENCODER_FIELDS, registerPcodec, load };
