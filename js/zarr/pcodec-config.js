// numcodecs' pcodec configuration (what zarr-python writes into array metadata) as pco.encode
// options, as numcodecs.PCodec._get_chunk_config reads it: level; mode_spec 'auto' | 'classic';
// delta_spec 'auto' | 'none' | 'try_consecutive' | 'try_lookback' | 'try_conv1' (the last two
// orders from delta_encoding_order); paging_spec 'equal_pages_up_to' with equal_pages_up_to
// (chunks of the standalone file: simple_compress chunks by the paging spec). numcodecs 0.12
// wrote no delta_spec: a delta_encoding_order alone means consecutive deltas of that order.
import { CODES, PcoError } from '../errors.js';

const DEFAULTS = { level: 8, equal_pages_up_to: 262144 };

function unsupported(field, value, known) {
  return new PcoError(`numcodecs.pcodec: configuration ${field} ${JSON.stringify(value)} is not one this encoder knows (${known.join(', ')})`, {
    code: CODES.UNSUPPORTED,
  });
}

function orderOf(configuration, spec) {
  const order = configuration.delta_encoding_order;
  if (order === null || order === undefined) {
    throw new PcoError(`numcodecs.pcodec: delta_spec ${JSON.stringify(spec)} needs delta_encoding_order`, { code: CODES.UNSUPPORTED });
  }
  return order;
}

function deltaOf(configuration) {
  const spec = configuration.delta_spec;
  if (spec === undefined || spec === null) {
    const order = configuration.delta_encoding_order;
    return order === null || order === undefined ? 'auto' : order === 0 ? 'noOp' : { kind: 'consecutive', order };
  }
  switch (spec) {
    case 'auto':
      return 'auto';
    case 'none':
      return 'noOp';
    case 'try_consecutive': {
      const order = orderOf(configuration, spec);
      return order === 0 ? 'noOp' : { kind: 'consecutive', order };
    }
    case 'try_lookback':
      return 'lookback';
    case 'try_conv1': {
      const order = orderOf(configuration, spec);
      return order === 0 ? 'noOp' : { kind: 'conv1', order };
    }
    default:
      throw unsupported('delta_spec', spec, ['auto', 'none', 'try_consecutive', 'try_lookback', 'try_conv1']);
  }
}

/** pco.encode options for a pcodec codec's configuration and the chunk's dtype. */
export function pcodecEncodeOptions(configuration, dtype) {
  const c = configuration ?? {};
  const mode = c.mode_spec ?? 'auto';
  if (mode !== 'auto' && mode !== 'classic') throw unsupported('mode_spec', mode, ['auto', 'classic']);
  const paging = c.paging_spec ?? 'equal_pages_up_to';
  if (paging !== 'equal_pages_up_to') throw unsupported('paging_spec', paging, ['equal_pages_up_to']);
  return {
    dtype,
    level: c.level ?? DEFAULTS.level,
    mode,
    delta: deltaOf(c),
    chunkSize: c.equal_pages_up_to ?? DEFAULTS.equal_pages_up_to,
  };
}
