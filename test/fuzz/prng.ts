// A small seeded PRNG (mulberry32) so that every hostile body can be made again from the seed a
// failure prints: the same seed and FUZZ_BODIES give the same requests in the same order per kind.

export class Prng {
  private state: number;
  private readonly initial: number;

  constructor(seed: number) {
    this.state = this.initial = seed >>> 0;
  }

  /** A float in [0, 1). */
  next(): number {
    let t = (this.state = (this.state + 0x6d2b79f5) >>> 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** An integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error('pick from an empty list');
    return items[this.int(items.length)]!;
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  /** A new generator whose sequence depends only on this seed and `label`, not on draws made so far. */
  fork(label: string): Prng {
    let h = this.initial ^ 0x811c9dc5;
    for (let i = 0; i < label.length; i++) h = Math.imul(h ^ label.charCodeAt(i), 0x01000193) >>> 0;
    return new Prng(h);
  }
}
