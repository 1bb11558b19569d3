// The logging interface every layer may take as a parameter. It lives on the floor so that
// controllers, registry and auth can log without importing the server that supplies the
// implementation.
export interface Logger {
  debug(message: string, ...args: unknown[]): void;
  info(message: string, ...args: unknown[]): void;
  /** klog's Warning; loggers without it log warnings as info. */
  warn?(message: string, ...args: unknown[]): void;
  error(message: string, ...args: unknown[]): void;
}
