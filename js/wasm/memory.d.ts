
/** One loaded module's wasm memory: what it holds now, and what keeps it (unreleased views and input buffers, by what made them). */
export interface ModuleMemory {
  bytes: number;
  live: Record<string, number>;
}

/** Each loaded module's wasm memory (a module not loaded is absent). */
export function memoryUsage(): Partial<Record<'pco' | 'alp' | 'bpcells', ModuleMemory>>;

export interface ReleasedMemory {
  before: number;
  after: number;
  released: boolean;
}

/**
 * Replaces each loaded module (or those of options.formats) by a fresh instance, whose memory is a
 * fresh load's. Rejects with ERR_IN_USE while a view or input buffer of a module is live.
 */
export function releaseMemory(options?: { formats?: Array<'pco' | 'alp' | 'bpcells'> }): Promise<Partial<Record<'pco' | 'alp' | 'bpcells', ReleasedMemory>>>;

/** After a call that left a module's memory above `bytes`, replace it by a fresh instance once nothing holds its memory; null turns it off. */
export function autoReleaseMemory(bytes: number | null): void;
