// fizarrita's codec worker with numdecode's pcodec codec registered in zarrita's registry: the
// entry bench/zarr-browser.mjs bundles with esbuild (into a temporary directory) at bench time.
// zarrita and fizarrita are bundled (a worker has no import map); numdecode's own modules stay
// external and load from /js/, so the codec is the same module code the page runs.
//
// fizarrita 1.4.1 builds its codecs with zarrita 0.6's chunk metadata ({data_type, shape, codecs});
// zarrita 0.7's codecs read {dataType, ...}. numdecode's PcodecCodec reads either since b8687a2
// (before, every getWorker of these arrays failed with "numcodecs.pcodec: data type undefined is
// not one Pco stores"), so the codec is registered here exactly as a page would register it.
import * as zarr from 'zarrita';
import { registerPcodec } from '/js/zarr.js';
import '@fideus-labs/fizarrita/codec-worker';

// Runs once every import above has evaluated, before the worker takes its first message.
registerPcodec(zarr.registry);
