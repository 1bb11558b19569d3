// Work for one key runs one piece at a time, in the order it was asked for, as a controller's
// workqueue never hands the same key to two workers; different keys run side by side. A failed
// piece is dropped: the controllers here act again on the next event or start-up.

export class KeyedQueue {
  private readonly running = new Map<string, Promise<void>>();

  enqueue(key: string, work: () => Promise<void>): Promise<void> {
    const previous = this.running.get(key) ?? Promise.resolve();
    const next = previous.then(work).catch(() => undefined);
    this.running.set(key, next);
    void next.finally(() => {
      if (this.running.get(key) === next) this.running.delete(key);
    });
    return next;
  }

  /** Resolves once every piece asked for so far, and any they asked for, has finished. */
  async idle(): Promise<void> {
    while (this.running.size) await Promise.all([...this.running.values()]);
  }
}
