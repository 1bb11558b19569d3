// The logging interface every layer may take as a parameter. It lives on the floor so that
// controllers, registry and auth can log without importing the server that supplies the
// implementation. debug/info/error are free-form lines; the optional structured half is klog's
// InfoS: a message and key/value pairs at a verbosity, written only when -v is at least that.
export interface Logger {
  debug(message: string, ...args: unknown[]): void;
  info(message: string, ...args: unknown[]): void;
  /** klog's Warning; loggers without it log warnings as info. */
  warn?(message: string, ...args: unknown[]): void;
  error(message: string, ...args: unknown[]): void;
  /** klog's V(level).Enabled(): whether a line at this verbosity would be written. */
  enabled?(level: number): boolean;
  /** klog's V(level).InfoS: a structured line, dropped when the verbosity is below `level`. */
  infoS?(level: number, message: string, keysAndValues?: Record<string, unknown>): void;
}

/** A structured line through any Logger: InfoS where it has one, else an info line with the pairs. */
export function logAt(logger: Logger, level: number, message: string, keysAndValues: Record<string, unknown> = {}): void {
  if (logger.infoS) {
    logger.infoS(level, message, keysAndValues);
    return;
  }
  if (level > 0) return;
  logger.info(message, keysAndValues);
}
