// The garbage collector's work queue, after client-go's rate-limited workqueue: an item waiting
// is not added twice, at most `workers` items run at once (kube-controller-manager's
// --concurrent-gc-syncs, 20), and an item that fails comes back after a delay that doubles per
// failure, so an owner of a kind nobody serves or a storage outage costs a retry now and then,
// never a busy loop. The server's other work keeps its turn between items.

const BASE_DELAY_MS = 5;
const MAX_DELAY_MS = 60_000;

export class GcQueue<T> {
  private readonly waiting = new Map<string, T>();
  private readonly running = new Set<string>();
  /** Keys added again while running: run once more after. */
  private readonly dirty = new Map<string, T>();
  private readonly failures = new Map<string, number>();
  private readonly timers = new Set<ReturnType<typeof setTimeout>>();
  private active = 0;
  private idleWaiters: (() => void)[] = [];
  private closed = false;

  constructor(
    private readonly work: (item: T) => Promise<'done' | 'retry'>,
    private readonly workers = 20,
  ) {}

  add(key: string, item: T): void {
    if (this.closed) return;
    if (this.running.has(key)) {
      this.dirty.set(key, item);
      return;
    }
    if (this.waiting.has(key)) return;
    this.waiting.set(key, item);
    this.pump();
  }

  /** Adds the item after its back-off delay. */
  private addLater(key: string, item: T): void {
    const n = (this.failures.get(key) ?? 0) + 1;
    this.failures.set(key, n);
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      this.add(key, item);
    }, Math.min(MAX_DELAY_MS, BASE_DELAY_MS * 2 ** (n - 1)));
    timer.unref?.();
    this.timers.add(timer);
  }

  private pump(): void {
    while (this.active < this.workers && this.waiting.size > 0) {
      const [key, item] = this.waiting.entries().next().value as [string, T];
      this.waiting.delete(key);
      this.running.add(key);
      this.active++;
      // Each item starts on a later turn, so a burst of thousands never holds the event loop.
      setImmediate(() => void this.run(key, item));
    }
    if (this.active === 0 && this.waiting.size === 0) {
      for (const resolve of this.idleWaiters.splice(0)) resolve();
    }
  }

  private async run(key: string, item: T): Promise<void> {
    let outcome: 'done' | 'retry';
    try {
      outcome = this.closed ? 'done' : await this.work(item);
    } catch {
      outcome = 'retry';
    }
    this.running.delete(key);
    this.active--;
    if (outcome === 'done') this.failures.delete(key);
    const again = this.dirty.get(key);
    this.dirty.delete(key);
    if (again !== undefined) this.add(key, again);
    else if (outcome === 'retry') this.addLater(key, item);
    this.pump();
  }

  /** Resolves once nothing is waiting or running (items waiting out a back-off do not count). */
  idle(): Promise<void> {
    if (this.active === 0 && this.waiting.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  close(): void {
    this.closed = true;
    this.waiting.clear();
    for (const timer of this.timers) clearTimeout(timer);
    for (const resolve of this.idleWaiters.splice(0)) resolve();
  }
}
