// --audit-* flags to a running audit configuration, checked as kube-apiserver's AuditOptions
// check them (same messages); nothing is built unless both a policy and a log path are given.

import type { Logger } from '../../machinery/logger.js';
import type { AuditConfig } from '../filters/audit.js';
import type { StartServerOptions } from '../options.js';
import { DEFAULT_BUFFER_SIZE, LOG_FORMATS, MODES, logBackend, type AuditMode, type LogFormat } from './log-backend.js';
import { ensureLogFile } from './log-file.js';
import { loadPolicyFile, policyRuleEvaluator } from './policy.js';

export interface RunningAudit {
  config: AuditConfig;
  close(): Promise<void>;
}

/** AuditLogOptions.Validate: every problem, one per line. */
export function validateAuditOptions(options: StartServerOptions): string[] {
  if (!options.auditLogPath) return [];
  const errors: string[] = [];
  const mode = options.auditLogMode ?? 'blocking';
  if (!(MODES as readonly string[]).includes(mode)) {
    errors.push(`invalid audit log mode ${mode}, allowed modes are ${JSON.stringify(MODES.join(','))}`);
  }
  const buffer = options.auditLogBatchBufferSize ?? DEFAULT_BUFFER_SIZE;
  if (buffer <= 0) errors.push(`invalid audit batch log buffer size ${buffer}, must be a positive number`);
  const format = options.auditLogFormat ?? 'json';
  if (!(LOG_FORMATS as readonly string[]).includes(format)) {
    errors.push(`invalid audit log format ${format}, allowed formats are ${JSON.stringify(LOG_FORMATS.join(','))}`);
  }
  for (const [flag, value] of [
    ['audit-log-maxage', options.auditLogMaxAge],
    ['audit-log-maxbackup', options.auditLogMaxBackup],
    ['audit-log-maxsize', options.auditLogMaxSize],
  ] as const) {
    if ((value ?? 0) < 0) errors.push(`--${flag} ${value} can't be a negative number`);
  }
  return errors;
}

export function startAudit(options: StartServerOptions, logger: Logger): RunningAudit | undefined {
  const errors = validateAuditOptions(options);
  if (errors.length > 0) throw new Error(errors.join('\n'));
  if (!options.auditPolicyFile) {
    if (options.auditLogPath) logger.info('No audit policy file provided, no events will be recorded for the log backend');
    return undefined;
  }
  const policy = loadPolicyFile(options.auditPolicyFile);
  if (!options.auditLogPath) return undefined;
  if (options.auditLogPath !== '-') ensureLogFile(options.auditLogPath);
  const sink = logBackend({
    path: options.auditLogPath,
    format: (options.auditLogFormat ?? 'json') as LogFormat,
    mode: (options.auditLogMode ?? 'blocking') as AuditMode,
    rotation: {
      maxSizeMB: options.auditLogMaxSize ?? 0,
      maxBackups: options.auditLogMaxBackup ?? 0,
      maxAgeDays: options.auditLogMaxAge ?? 0,
    },
    bufferSize: options.auditLogBatchBufferSize,
    logger,
    onEvent: options.onAuditEvent,
    onError: options.onAuditError,
  });
  return { config: { evaluate: policyRuleEvaluator(policy), sink }, close: () => sink.close() };
}
