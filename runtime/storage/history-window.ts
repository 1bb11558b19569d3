// Automatic compaction after a watch window, shared by the embedded backends.
//
// Rows carry no timestamps; instead a timer notes which revision was current at each tick.
// A revision noted at least `windowMs` ago is old enough: history up to it is compacted.
// Compaction therefore lags the window by at most one tick, and a restart begins a fresh
// window (history written before it is kept for one more window, never less).

interface Checkpoint {
  revision: number;
  at: number;
}

export const DEFAULT_HISTORY_WINDOW_MS = 5 * 60_000;

export class HistoryWindow {
  private readonly checkpoints: Checkpoint[] = [];
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly windowMs: number,
    private readonly currentRevision: () => number,
    private readonly compact: (revision: number) => void,
    private readonly onCompactError: (error: unknown) => void = () => {},
  ) {
    this.note();
    const tick = Math.min(Math.max(Math.floor(windowMs / 5), 10), 60_000);
    this.timer = setInterval(() => this.tick(), tick);
    // Compaction must never keep a process (or a test run) alive on its own.
    this.timer.unref();
  }

  private note(): void {
    const revision = this.currentRevision();
    const last = this.checkpoints[this.checkpoints.length - 1];
    if (!last || last.revision !== revision) this.checkpoints.push({ revision, at: Date.now() });
  }

  private tick(): void {
    this.note();
    const cutoff = Date.now() - this.windowMs;
    let old = -1;
    while (old + 1 < this.checkpoints.length && this.checkpoints[old + 1]!.at <= cutoff) old++;
    if (old < 0) return;
    const revision = this.checkpoints[old]!.revision;
    this.checkpoints.splice(0, old + 1);
    if (revision <= 0) return;
    try {
      this.compact(revision);
    } catch (error) {
      this.onCompactError(error);
    }
  }

  stop(): void {
    clearInterval(this.timer);
  }
}
