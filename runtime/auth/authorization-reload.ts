// --authorization-config is reloaded while the server runs, as kube-apiserver's
// reloadableAuthorizerResolver does: the file is watched (and, as filesystem.WatchUntil does,
// also polled once a minute, for changes a watch misses), read whole, and ignored when its bytes
// are unchanged. A valid new configuration replaces the chain for the next request; an invalid
// one keeps the last good chain, is logged, and counted. A reload may not drop a built-in type
// the server started with ("missing required types"), as kube's may not.

import { readFileSync, watch, type FSWatcher } from 'node:fs';
import { basename, dirname } from 'node:path';
import type { Logger } from '../machinery/logger.js';
import { loadAuthorizationConfiguration } from './authorization-config.js';
import { buildAuthorizerChain, type AuthorizerChain, type ChainOptions } from './authorization-chain.js';
import type { Attributes, AuthorizationResult, Authorizer, RuleResolver, RulesResult } from './authorizer.js';
import type { UserInfo } from './user.js';

/** kube's poll period for the file (reloadInterval). */
export const DEFAULT_RELOAD_INTERVAL_MS = 60_000;

/**
 * The counts behind apiserver_authorization_config_controller_automatic_reloads_total{status}
 * and apiserver_authorization_config_controller_automatic_reload_last_timestamp_seconds{status},
 * which /metrics exports through ChainOptions.metrics; kept here too for the library's callers.
 */
export interface ReloadMetrics {
  automaticReloadsTotal: { success: number; failure: number };
  automaticReloadLastTimestampSeconds: { success?: number; failure?: number };
}

export interface ReloadOptions extends ChainOptions {
  path: string;
  logger: Logger;
  reloadIntervalMs?: number;
}

export class ReloadingAuthorizer implements Authorizer, RuleResolver {
  readonly metrics: ReloadMetrics = { automaticReloadsTotal: { success: 0, failure: 0 }, automaticReloadLastTimestampSeconds: {} };
  private watcher?: FSWatcher;
  private poll?: NodeJS.Timeout;
  private pending?: NodeJS.Timeout;
  private checking: Promise<void> = Promise.resolve();
  private closed = false;

  private constructor(
    private current: AuthorizerChain,
    private lastRead: string,
    private readonly requiredTypes: Set<string>,
    private readonly options: ReloadOptions,
  ) {}

  /** Loads the file (a bad one throws kube's start-up error) and starts watching it. */
  static async start(options: ReloadOptions): Promise<ReloadingAuthorizer> {
    const text = readFileSync(options.path, 'utf8');
    const config = loadAuthorizationConfiguration(text);
    const chain = await buildAuthorizerChain(config, options);
    const required = new Set(config.authorizers.filter((a) => a.type !== 'Webhook').map((a) => a.type));
    const reloading = new ReloadingAuthorizer(chain, text, required, options);
    reloading.watch();
    return reloading;
  }

  authorize(a: Attributes): AuthorizationResult | Promise<AuthorizationResult> {
    return this.current.authorizer.authorize(a);
  }

  rulesFor(user: UserInfo, namespace: string): RulesResult | Promise<RulesResult> {
    return this.current.authorizer.rulesFor(user, namespace);
  }

  /** The chain in use, for tests and the benchmark. */
  get chain(): AuthorizerChain {
    return this.current;
  }

  /** Reads the file now; resolves once any change has been applied or refused. */
  checkNow(): Promise<void> {
    this.checking = this.checking.then(() => this.checkFile());
    return this.checking;
  }

  close(): void {
    this.closed = true;
    this.watcher?.close();
    clearInterval(this.poll);
    clearTimeout(this.pending);
    this.current.close();
  }

  private watch(): void {
    const { path } = this.options;
    const name = basename(path);
    try {
      // The directory, not the file: editors and config managers replace files by renaming.
      this.watcher = watch(dirname(path), (_event, changed) => {
        if (changed && changed.toString() !== name) return;
        clearTimeout(this.pending);
        this.pending = setTimeout(() => void this.checkNow(), 50);
      });
      this.watcher.on('error', (err) => this.options.logger.error(`watching authorization config file: ${err.message}`));
    } catch (err) {
      this.options.logger.error(`watching authorization config file: ${(err as Error).message}`);
    }
    this.poll = setInterval(() => void this.checkNow(), this.options.reloadIntervalMs ?? DEFAULT_RELOAD_INTERVAL_MS);
    this.poll.unref();
  }

  private counted(status: 'success' | 'failure'): void {
    const seconds = Date.now() / 1000;
    this.metrics.automaticReloadsTotal[status]++;
    this.metrics.automaticReloadLastTimestampSeconds[status] = seconds;
    this.options.metrics?.authorizationConfigReload(status, seconds);
  }

  private failed(err: unknown): void {
    this.options.logger.error(`reloading authorization config: ${(err as Error).message}`);
    this.counted('failure');
  }

  private async checkFile(): Promise<void> {
    if (this.closed) return;
    let text: string;
    try {
      text = readFileSync(this.options.path, 'utf8');
    } catch (err) {
      return this.failed(err);
    }
    if (text === this.lastRead) return;
    this.options.logger.info('found new authorization config data');
    this.lastRead = text;
    let chain: AuthorizerChain;
    try {
      const config = loadAuthorizationConfiguration(text, { requiredTypes: this.requiredTypes });
      chain = await buildAuthorizerChain(config, this.options);
    } catch (err) {
      return this.failed(err);
    }
    if (this.closed) return chain.close();
    const previous = this.current;
    this.current = chain;
    // Requests already asking the old webhooks finish on their connections; then they go.
    setTimeout(() => previous.close(), 35_000).unref();
    this.counted('success');
    this.options.logger.info('reloaded authz config');
  }
}
