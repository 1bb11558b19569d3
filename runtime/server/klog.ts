// The process's logger, in kube-apiserver's two output forms (component-base/logs):
//   text (klog):  I1126 03:04:05.123456   12345 httplog.go:42] "HTTP" verb="GET" resp=200
//   json:         {"ts":1764126245123.456,"caller":"httplog.go:42","msg":"HTTP","v":3,"verb":"GET","resp":200}
// A line at verbosity v is written when -v is at least v. Everything goes to stderr, as kube's
// components do. A stderr nobody reads any more (EPIPE) silences the logger instead of failing
// the process: shutting down must not depend on someone still listening.

import { formatWithOptions } from 'node:util';
import type { Logger } from '../machinery/logger.js';

export type LoggingFormat = 'text' | 'json';
export const LOGGING_FORMATS: readonly LoggingFormat[] = ['text', 'json'];

/** Verbosity of the free-form debug lines (TLS and connection errors, authentication failures). */
const DEBUG_LEVEL = 4;

export interface KlogOptions {
  format?: LoggingFormat;
  /** -v: the highest verbosity written. */
  verbosity?: number;
  stream?: NodeJS.WritableStream;
}

type Severity = 'I' | 'E';

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

/** The klog header's time: MMDD hh:mm:ss.uuuuuu in local time, as klog prints it. */
function klogTime(now: Date, micros: number): string {
  const date = `${pad(now.getMonth() + 1)}${pad(now.getDate())}`;
  return `${date} ${pad(now.getHours())}:${pad(now.getMinutes())}:${pad(now.getSeconds())}.${pad(micros, 6)}`;
}

/** The logging code itself, which klog's caller skips (its own files and the logAt helper). */
const LOGGING_FILES = new Set(['klog.ts', 'klog.js', 'logger.ts', 'logger.js']);

/** Where the line was logged from, as klog's file.go:line (the file's base name). */
function caller(): string {
  const frames = new Error().stack?.split('\n') ?? [];
  for (const frame of frames.slice(1)) {
    const m = /([^/\\(\s]+):(\d+):\d+\)?\s*$/.exec(frame);
    if (m && !LOGGING_FILES.has(m[1])) return `${m[1]}:${m[2]}`;
  }
  return '???:1';
}

/** Go's strconv.Quote, near enough: JSON's escapes are a subset Go reads back the same. */
const quote = (s: string) => JSON.stringify(s);

function textValue(value: unknown): string {
  if (value instanceof Error) return quote(value.message);
  if (typeof value === 'string') return quote(value);
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  if (value === undefined || value === null) return '<nil>';
  try {
    return JSON.stringify(value);
  } catch {
    return quote(String(value));
  }
}

function jsonValue(value: unknown): unknown {
  if (value instanceof Error) return value.message;
  if (typeof value === 'bigint') return Number(value);
  return value ?? null;
}

export class KlogLogger implements Logger {
  readonly format: LoggingFormat;
  readonly verbosity: number;
  private readonly stream: NodeJS.WritableStream;
  private broken = false;

  constructor(options: KlogOptions = {}) {
    this.format = options.format ?? 'text';
    this.verbosity = options.verbosity ?? 0;
    this.stream = options.stream ?? process.stderr;
    // Without a listener a failed write (EPIPE) would be an uncaught exception.
    this.stream.on('error', () => {
      this.broken = true;
    });
  }

  enabled(level: number): boolean {
    return level <= this.verbosity;
  }

  infoS(level: number, message: string, keysAndValues: Record<string, unknown> = {}): void {
    if (!this.enabled(level)) return;
    this.write('I', level, message, keysAndValues, true);
  }

  debug(message: string, ...args: unknown[]): void {
    if (!this.enabled(DEBUG_LEVEL)) return;
    this.write('I', DEBUG_LEVEL, formatWithOptions({ breakLength: Infinity }, message, ...args), {}, false);
  }

  info(message: string, ...args: unknown[]): void {
    this.write('I', 0, formatWithOptions({ breakLength: Infinity }, message, ...args), {}, false);
  }

  error(message: string, ...args: unknown[]): void {
    const err = args.find((a): a is Error => a instanceof Error);
    const rest = args.filter((a) => a !== err);
    const text = formatWithOptions({ breakLength: Infinity }, message, ...rest).replace(/:\s*$/, '');
    this.write('E', 0, text, err ? { err } : {}, false);
  }

  private write(severity: Severity, level: number, message: string, kv: Record<string, unknown>, structured: boolean): void {
    if (this.broken) return;
    const at = caller();
    const line = this.format === 'json' ? this.jsonLine(severity, level, message, kv, at) : this.textLine(severity, message, kv, structured, at);
    try {
      this.stream.write(line);
    } catch {
      this.broken = true;
    }
  }

  private textLine(severity: Severity, message: string, kv: Record<string, unknown>, structured: boolean, at: string): string {
    const nowMs = Date.now();
    const micros = (nowMs % 1000) * 1000 + Math.floor((performance.now() % 1) * 1000);
    const header = `${severity}${klogTime(new Date(nowMs), micros)} ${String(process.pid).padStart(7)} ${at}]`;
    let out = `${header} ${structured || Object.keys(kv).length > 0 ? quote(message) : message}`;
    for (const [key, value] of Object.entries(kv)) out += ` ${key}=${textValue(value)}`;
    return `${out}\n`;
  }

  private jsonLine(severity: Severity, level: number, message: string, kv: Record<string, unknown>, at: string): string {
    const entry: Record<string, unknown> = { ts: Date.now() + (performance.now() % 1), caller: at, msg: message };
    // zapr writes the verbosity on info lines only; error lines carry err instead.
    if (severity === 'I') entry.v = level;
    for (const [key, value] of Object.entries(kv)) entry[key] = jsonValue(value);
    return `${JSON.stringify(entry)}\n`;
  }
}
