// fizarrita's codec worker with numdecode's pcodec codec registered in zarrita's registry: the
// entry bench/zarr-browser.mjs bundles with esbuild (into a temporary directory) at bench time.
// zarrita and fizarrita are bundled (a worker has no import map); numdecode's own modules stay
// external and load from /js/, so the codec is the same module code the page runs.
import * as zarr from 'zarrita';
import { registerPcodec } from '/js/zarr.js';
import '@fideus-labs/fizarrita/codec-worker';

// Runs once every import above has evaluated, before the worker takes its first message.
registerPcodec(zarr.registry);

// fizarrita 1.4.1 builds its pipeline with zarrita 0.6's chunk metadata, {data_type, shape, codecs},
// where zarrita 0.7's codecs (its own "bytes" codec as numdecode's) read {dataType, shape, codecs}:
// without this, every codec that looks at the data type fails in fizarrita's worker ("data type
// undefined is not one Pco stores"). Each codec is handed both spellings; decoding is unchanged.
for (const [name, factory] of [...zarr.registry]) {
  zarr.registry.set(name, async () => {
    const Codec = await factory();
    return {
      kind: Codec.kind,
      fromConfig: (configuration, meta) => Codec.fromConfig(configuration, { ...meta, dataType: meta.dataType ?? meta.data_type }),
    };
  });
}
