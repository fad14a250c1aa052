// DEPRECATED names (0.x): a matrix directory is read through js/io's RangeDirectory, which
// io.openDirectory(source, options) makes and bpcells.open() accepts as it is. These classes are
// RangeDirectory under their old names, for code written before the I/O layer was public; they go
// in a later release.
import { deprecated } from '../deprecate.js';
import { RangeDirectory } from '../io/directory.js';
import { ioOptionsOf } from '../io/options.js';

export { BpcellsError } from '../errors.js';

/** @deprecated io.openDirectory(dir, options): a matrix directory on the local file system (Node). */
export class LocalDirSource extends RangeDirectory {
  constructor(dir, options) {
    deprecated('bpcells.LocalDirSource', 'io.openDirectory(dir, options)');
    super(String(dir), ioOptionsOf(options));
  }
}

/** @deprecated io.openDirectory(baseUrl, options): the files under an http(s) base URL. */
export class HttpSource extends RangeDirectory {
  constructor(baseUrl, options) {
    deprecated('bpcells.HttpSource', 'io.openDirectory(baseUrl, options)');
    super(baseUrl instanceof URL ? baseUrl.href : String(baseUrl), ioOptionsOf(options));
  }

  /** The URL of file `name` (RangeDirectory.location). */
  url(name) {
    return this.location(name);
  }
}

/** @deprecated io.openDirectory(obj, options): a user object {size(name), read(name, start, end)}. */
export class ObjectSource extends RangeDirectory {
  constructor(obj, options) {
    deprecated('bpcells.ObjectSource', 'io.openDirectory(obj, options)');
    super(obj, ioOptionsOf(options));
  }
}

/** @deprecated io.openDirectory(source, options); a RangeDirectory is returned as it is. */
export function toSource(source, options) {
  deprecated('bpcells.toSource', 'io.openDirectory(source, options)');
  return source instanceof RangeDirectory ? source : new RangeDirectory(source, ioOptionsOf(options));
}
