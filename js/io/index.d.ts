// Types of the range-reading layer (js/io/index.js).
import { IoError, CODES } from '../errors.js';

export { IoError, CODES };

export interface IoFileStats {
  requests: number;
  bytes: number;
}

/** Live counters: what actually went over the wire (or out of the file system). */
export interface IoStats {
  requests: number;
  bytes: number;
  /** Attempts repeated after a retryable failure. */
  retries: number;
  /** Waves of requests: requests started while no other was in flight (what a slow link multiplies by its latency). */
  roundTrips: number;
  files: Record<string, IoFileStats>;
}

export interface IoOptions {
  /** Extra attempts after the first for network errors, 5xx, 408, 429 and short answers (default 3; 0 = off). */
  retries?: number;
  /** ms of silence a request may take: until its answer's headers, then between pieces of its body (default 60000); a slow body that keeps arriving is not cut. */
  timeout?: number;
  signal?: AbortSignal;
  headers?: Record<string, string>;
  fetch?: (input: string, init?: RequestInit) => Promise<Response>;
  /** Total bytes this file / directory may download (default Infinity). */
  maxReadBytes?: number;
  /** @deprecated use maxReadBytes (still read, with a one-time warning). */
  maxBytes?: number;
  /** Bound of the LRU cache of fetched ranges (default 16 MiB; 0 = no cache). */
  cacheBytes?: number;
  /** > 0: fetches widen to whole aligned blocks of this many bytes (read-ahead); default 0 = exact. */
  blockSize?: number;
  /** readRanges merges ranges separated by at most this many bytes (default 65536). */
  gap?: number;
  /** Requests in flight per origin (default 64 in Node, 6 where a browser sends them: a page, a worker, an Electron renderer). */
  concurrency?: number;
  /** How errors name the file. */
  name?: string;
  /** ms: first backoff step, doubling per attempt with jitter (default 200). */
  retryDelay?: number;
  /** ms: cap on backoff and on a server's Retry-After (default 10000). */
  maxRetryDelay?: number;
  /** Send If-Range on later ranges (default: yes, except cross-origin in browsers, where it costs a preflight). */
  ifRange?: boolean;
  /**
   * Ask for a file's tail as a suffix range (`bytes=-n`: its size and tail in one request; Parquet's
   * footer). Default: yes, except cross-origin in browsers, where a suffix range is not
   * CORS-safelisted and would cost a preflight: there a HEAD tells the size first.
   */
  suffixRange?: boolean;
}

export const IO_DEFAULTS: Readonly<Required<Omit<IoOptions, 'maxBytes' | 'signal' | 'headers' | 'fetch' | 'name' | 'ifRange' | 'suffixRange'>>>;

export interface SizedReadable {
  size(): number | Promise<number>;
  read(start: number, end: number): Uint8Array | ArrayBuffer | Promise<Uint8Array | ArrayBuffer>;
}

/** hyparquet's AsyncBuffer. */
export interface AsyncBufferLike {
  byteLength: number;
  slice(start: number, end?: number): ArrayBuffer | Promise<ArrayBuffer>;
}

export type FileInput = string | URL | Blob | ArrayBuffer | ArrayBufferView | SizedReadable | AsyncBufferLike;

export interface ReadOptions {
  signal?: AbortSignal;
}

export class RangeFile {
  private constructor();
  /** The path / URL / 'File name' every error names (err.file); a directory's file: its name there. */
  readonly name: string;
  readonly kind: 'local' | 'http' | 'blob' | 'buffer' | 'object';
  readonly stats: IoStats;
  /** The options it was opened with, defaults filled in (concurrency: its requests in flight). */
  readonly options: Readonly<IoOptions>;
  size(options?: ReadOptions): Promise<number>;
  /** Exactly bytes [start, end) (treat as read-only: it may be cached), else an IoError. */
  read(start: number, end: number, options?: ReadOptions): Promise<Uint8Array>;
  /** The whole file (one GET without Range over HTTP). */
  readAll(options?: ReadOptions): Promise<Uint8Array>;
  /** Several ranges in the order given; close ones share one request. */
  readRanges(ranges: ReadonlyArray<readonly [number, number]>, options?: ReadOptions): Promise<Uint8Array[]>;
  /** Synchronous: the bytes if available without I/O, else null. */
  peek(start: number, end: number): Uint8Array | null;
  /**
   * Present only where synchronous reading exists (Node local files, buffers, Blobs in Workers).
   * With `target` (a Uint8Array of end - start bytes, e.g. a wasmInput's bytes) the bytes land
   * there and target is returned.
   */
  readSync?(start: number, end: number, target?: Uint8Array): Uint8Array;
  close(): void;
}

export interface DirectorySourceObject {
  size(name: string): number | null | undefined | Promise<number | null | undefined>;
  read(name: string, start: number, end: number): Uint8Array | ArrayBuffer | Promise<Uint8Array | ArrayBuffer>;
}

/**
 * The files of one directory by name (a BPCells matrix directory). Errors of its files give the
 * name in the directory as err.file; their messages say the path or URL.
 */
export class RangeDirectory {
  private constructor();
  /** The directory's path or base URL ('custom source' or options.name for an object). */
  readonly name: string;
  readonly kind: 'local' | 'http' | 'object';
  readonly stats: IoStats;
  readonly options: Readonly<IoOptions>;
  /** HTTP: true/false once a ranged request has been answered with 206/200; undefined until then. */
  readonly rangeSupported: boolean | undefined;
  /** The URL or path of file `name`. */
  location(name: string): string;
  /** The RangeFile of file `name` (one per name); a name with a path separator is a TypeError. */
  file(name: string): RangeFile;
  size(name: string): Promise<number>;
  /** Exactly bytes [start, end) of file `name`. */
  read(name: string, start: number, end: number): Promise<Uint8Array>;
  readAll(name: string): Promise<Uint8Array>;
  /**
   * For a file that reads synchronously (local files in Node): a function putting bytes
   * [start, end) into `target` and returning it; null otherwise.
   */
  syncReader(name: string): ((start: number, end: number, target: Uint8Array) => Uint8Array) | null;
  /** Closes file descriptors and drops cached bytes (files reopen if read again). */
  close(): void;
}

export function openFile(input: FileInput, options?: IoOptions): RangeFile;
export function openDirectory(input: string | URL | DirectorySourceObject, options?: IoOptions): RangeDirectory;

/**
 * A file's last n bytes (fewer when the file is shorter), where they start, and the file's size:
 * over HTTP one suffix range (`bytes=-n`) whose Content-Range tells the size, where that adds no
 * CORS preflight (same origin, Node) or options.suffixRange says the server allows it; otherwise a
 * size request first. For readers whose metadata sits at the end (Parquet's footer).
 */
/** What crossed the wire between a snapshot (`statsSince(stats)` taken earlier) and now. */
export function statsSince(stats: IoStats, before?: { requests: number; bytes: number; roundTrips: number }): { requests: number; bytes: number; roundTrips: number };
export function readTail(file: RangeFile, n: number, options?: { signal?: AbortSignal }): Promise<{ size: number; start: number; bytes: Uint8Array }>;
