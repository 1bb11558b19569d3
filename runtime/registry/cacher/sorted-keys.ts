// The watch cache's keys in order, for lists from a start key and continue tokens. One sorted
// array would move half of its entries on every create of a new key (tens of microseconds at a
// hundred thousand objects, and growing with them); sorted runs of bounded length keep an insert
// or a removal to one short run, while a range read still walks the keys in order. This is the
// job upstream's watch cache gives its B-tree index.

/** A run is split in two once it grows past this many keys. */
const MAX_RUN = 512;

/** Index of the first element of a sorted array not less than `key`. */
function lowerBound(keys: readonly string[], key: string): number {
  let lo = 0;
  let hi = keys.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (keys[mid]! < key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

export class SortedKeys {
  /** Non-empty sorted runs; every key of a run sorts before every key of the next. */
  private runs: string[][] = [];

  clear(): void {
    this.runs = [];
  }

  /** Adds a key that is not present yet. */
  insert(key: string): void {
    if (this.runs.length === 0) {
      this.runs.push([key]);
      return;
    }
    const r = this.runFor(key);
    const run = this.runs[r]!;
    run.splice(lowerBound(run, key), 0, key);
    if (run.length > MAX_RUN) this.runs.splice(r + 1, 0, run.splice(run.length >>> 1));
  }

  /** Removes a key if present. */
  remove(key: string): void {
    if (this.runs.length === 0) return;
    const r = this.runFor(key);
    const run = this.runs[r]!;
    const i = lowerBound(run, key);
    if (run[i] !== key) return;
    run.splice(i, 1);
    if (run.length === 0) this.runs.splice(r, 1);
  }

  /**
   * Where a walk over the keys not less than `from` starts: a run (see run()) and an index in it.
   * Walkers go on through the following runs in order; nothing may change the keys meanwhile.
   */
  seek(from: string): [run: number, index: number] {
    if (this.runs.length === 0) return [0, 0];
    const r = this.runFor(from);
    return [r, lowerBound(this.runs[r]!, from)];
  }

  /** The r-th run, undefined past the last. */
  run(r: number): readonly string[] | undefined {
    return this.runs[r];
  }

  /** The run that holds `key` or would: the first whose last key is not less than it, else the last run. */
  private runFor(key: string): number {
    let lo = 0;
    let hi = this.runs.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const run = this.runs[mid]!;
      if (run[run.length - 1]! < key) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}
