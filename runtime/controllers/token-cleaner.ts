// kube-controller-manager's tokencleaner (pkg/controller/bootstrap/tokencleaner.go): a bootstrap
// token Secret in kube-system is deleted once its expiration has passed, with its uid as
// precondition so a Secret recreated under the same name is left alone. As upstream queues the
// Secret again after the time it has left, each unexpired token gets one timer for its
// expiration (not a poll); a change of the Secret sets it afresh, its deletion clears it.
// An expiration that does not read as an RFC 3339 time is logged and the Secret left alone (the
// issue's rule for bad token data; upstream would treat it as expired).

import { isStatusError } from '../errors/status-error.js';
import { metaOf, type KubeObject } from '../machinery/object.js';
import type { Store } from '../registry/store.js';
import type { Logger } from '../machinery/logger.js';
import { expirationOf, isTokenSecret, secretRef } from './bootstrap-token-secrets.js';
import type { KeyedQueue } from './keyed-queue.js';

/** setTimeout's longest delay; a later expiration is looked at again when this one fires. */
const MAX_TIMER_MS = 2 ** 31 - 1;

export class TokenCleaner {
  private readonly timers = new Map<string, ReturnType<typeof setTimeout>>();
  private closed = false;

  constructor(
    private readonly secrets: Store,
    private readonly queue: KeyedQueue,
    private readonly logger: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  /** A token Secret seen (listed, added or changed): delete it now or when it expires. */
  observe(secret: KubeObject): void {
    if (this.closed || !isTokenSecret(secret)) return;
    const ref = secretRef(secret);
    this.clearTimer(ref);
    const expiration = expirationOf(secret);
    if (expiration.kind === 'never') return;
    if (expiration.kind === 'unreadable') {
      this.logger.info(`tokencleaner: ignoring Secret ${ref}: expiration ${JSON.stringify(expiration.value)} is not an RFC 3339 time`);
      return;
    }
    const left = expiration.ms - this.now();
    if (left <= 0) {
      void this.queue.enqueue(`tokencleaner:${ref}`, () => this.deleteExpired(secret));
      return;
    }
    const timer = setTimeout(() => {
      this.timers.delete(ref);
      this.observe(secret);
    }, Math.min(left, MAX_TIMER_MS));
    timer.unref?.();
    this.timers.set(ref, timer);
  }

  forget(secret: KubeObject): void {
    this.clearTimer(secretRef(secret));
  }

  close(): void {
    this.closed = true;
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
  }

  private clearTimer(ref: string): void {
    clearTimeout(this.timers.get(ref));
    this.timers.delete(ref);
  }

  private async deleteExpired(secret: KubeObject): Promise<void> {
    const meta = metaOf(secret);
    this.logger.debug(`tokencleaner: deleting expired Secret ${secretRef(secret)}`);
    try {
      await this.secrets.delete(meta.namespace, meta.name ?? '', meta.uid ? { preconditions: { uid: meta.uid } } : {});
    } catch (err) {
      // Gone already, or another Secret now has the name: nothing to do.
      if (isStatusError(err) && (err.code === 404 || err.code === 409)) return;
      this.logger.error(`tokencleaner: deleting Secret ${secretRef(secret)}: ${(err as Error).message}`);
    }
  }
}
