// The log backend (kube's plugin/pkg/audit/log behind plugin/pkg/audit/buffered): events become
// lines (json, or kube's one-line legacy text) and go through a bounded queue to the file or
// stdout. Writing is never done on the request's path: a full disk or a path that vanished
// costs the request nothing but a dropped event, which is logged (its ID and stage, never its
// content) and counted. In the blocking modes the request waits until its event is written or
// failed, as kube's blocking backend; blocking-strict also refuses a request whose
// RequestReceived event could not be stored.

import { goQuote } from '../../machinery/go-format.js';
import type { Logger } from '../../machinery/logger.js';
import type { AuditEvent } from './event.js';
import { RotatingLogFile, type RotationOptions } from './log-file.js';

export const LOG_FORMATS = ['legacy', 'json'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];
export const MODES = ['batch', 'blocking', 'blocking-strict'] as const;
export type AuditMode = (typeof MODES)[number];

/** kube's defaultBatchBufferSize: events queued before new ones are dropped. */
export const DEFAULT_BUFFER_SIZE = 10_000;
/** Lines written to the file in one call. */
const MAX_LINES_PER_WRITE = 400;
/** Drops are reported at most this often. */
const DROP_REPORT_INTERVAL_MS = 1_000;

export interface AuditSink {
  readonly mode: AuditMode;
  /** Resolves true once written, false when dropped or failed; never rejects. */
  process(event: AuditEvent): Promise<boolean>;
  close(): Promise<void>;
}

/** kube's audit.EventString. */
export function legacyLine(ev: AuditEvent): string {
  const username = ev.user.username || '<none>';
  const groups = ev.user.username && ev.user.groups?.length ? ev.user.groups.map(goQuote).join(',') : '<none>';
  const as = ev.impersonatedUser ? (ev.impersonatedUser.username ?? '') : '<self>';
  const asGroups = ev.impersonatedUser?.groups ? ev.impersonatedUser.groups.map(goQuote).join(',') : '<lookup>';
  const fields: [string, string][] = [
    ['id', ev.auditID],
    ['stage', ev.stage],
    ['ip', ev.sourceIPs[0] ?? '<unknown>'],
    ['method', ev.verb],
    ['user', username],
    ['groups', groups],
    ['as', as],
    ['asgroups', asGroups],
    ['user-agent', ev.userAgent ?? ''],
    ['namespace', ev.objectRef?.namespace || '<none>'],
    ['uri', ev.requestURI],
  ];
  const response = ev.responseStatus ? String(ev.responseStatus.code) : '<deferred>';
  return `${ev.requestReceivedTimestamp} AUDIT: ${fields.map(([k, v]) => `${k}=${goQuote(v)}`).join(' ')} response="${response}"\n`;
}

interface Writer {
  write(data: string): Promise<void>;
  close(): Promise<void>;
}

function stdoutWriter(): Writer {
  return {
    write: (data) => new Promise((resolve, reject) => process.stdout.write(data, (err) => (err ? reject(err) : resolve()))),
    close: async () => {},
  };
}

export interface LogBackendOptions {
  /** --audit-log-path; `-` is standard output. */
  path: string;
  format: LogFormat;
  mode: AuditMode;
  rotation: RotationOptions;
  bufferSize?: number;
  logger: Logger;
  /** Called for each event handed to the backend (apiserver_audit_event_total). */
  onEvent?: () => void;
  /** Called for each event that could not be stored (apiserver_audit_error_total). */
  onError?: () => void;
}

interface Pending {
  line: string;
  event: AuditEvent;
  done: (ok: boolean) => void;
}

export function logBackend(options: LogBackendOptions): AuditSink & { readonly dropped: number } {
  const writer: Writer = options.path === '-' ? stdoutWriter() : new RotatingLogFile(options.path, options.rotation);
  const bufferSize = options.bufferSize ?? DEFAULT_BUFFER_SIZE;
  const { logger } = options;
  const queue: Pending[] = [];
  let draining: Promise<void> | undefined;
  let dropped = 0;
  let unreported = 0;
  let lastReport = 0;
  let closed = false;

  const reportDrop = (event: AuditEvent, why: string) => {
    dropped++;
    unreported++;
    options.onError?.();
    const now = Date.now();
    if (now - lastReport < DROP_REPORT_INTERVAL_MS) return;
    logger.error(`audit log: ${unreported} event(s) not written (last auditID=${event.auditID} stage=${event.stage}): ${why}`);
    lastReport = now;
    unreported = 0;
  };

  const drain = async () => {
    while (queue.length > 0) {
      const batch = queue.splice(0, MAX_LINES_PER_WRITE);
      let ok = true;
      try {
        await writer.write(batch.map((p) => p.line).join(''));
      } catch (err) {
        ok = false;
        const message = (err as Error).message;
        for (const p of batch) reportDrop(p.event, message);
      }
      for (const p of batch) p.done(ok);
    }
    draining = undefined;
  };

  return {
    mode: options.mode,
    get dropped() {
      return dropped;
    },
    process(event) {
      options.onEvent?.();
      if (closed || queue.length >= bufferSize) {
        reportDrop(event, closed ? 'backend closed' : `queue full (${bufferSize} events)`);
        return Promise.resolve(false);
      }
      const line = options.format === 'legacy' ? legacyLine(event) : `${JSON.stringify(event)}\n`;
      return new Promise<boolean>((done) => {
        queue.push({ line, event, done });
        draining ??= drain();
      });
    },
    async close() {
      closed = true;
      await draining;
      await writer.close();
    },
  };
}
