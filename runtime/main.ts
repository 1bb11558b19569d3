// `npm start`: parse flags, start the server, print where it is, stop cleanly on SIGINT/SIGTERM.
// A bad flag or configuration prints one error line and exits 1, as kube-apiserver does.

import { ConfigurationError, startServer } from './index.js';
import { logAt } from './machinery/logger.js';
import { FlagError, parseFlags, USAGE } from './server/flags.js';
import { KlogLogger } from './server/klog.js';

/**
 * A closed stdout or stderr (the reader went away) must neither crash the process nor keep it
 * from shutting down: writes to it are dropped instead of raising EPIPE.
 */
function tolerateClosedOutput(): void {
  for (const stream of [process.stdout, process.stderr]) stream.on('error', () => {});
}

/** The last line of defence: a request that escapes every handler must not end the process. */
function guardProcess(logger: KlogLogger): void {
  process.on('uncaughtException', (err) => logger.error('uncaught exception (server continues):', err));
  process.on('unhandledRejection', (reason) => logger.error('unhandled rejection (server continues):', reason));
}

let announceServing!: () => void;
/**
 * Settles once the server serves and has said so. The launcher (launch.cjs) times its after-start
 * work from it: the code cache, then a collection of the start's garbage.
 */
export const serving = new Promise<void>((resolve) => (announceServing = resolve));

async function main(argv: string[]): Promise<number> {
  tolerateClosedOutput();
  let parsed;
  try {
    parsed = parseFlags(argv);
  } catch (err) {
    if (err instanceof FlagError) {
      console.error(`Error: ${err.message}`);
      return 1;
    }
    throw err;
  }
  if (parsed.help) {
    process.stdout.write(USAGE);
    return 0;
  }

  const logger = new KlogLogger({ format: parsed.logging.format, verbosity: parsed.logging.verbosity });
  logAt(logger, 1, 'Version', { gitVersion: process.env.npm_package_version ?? 'unknown', nodeVersion: process.version });
  let server;
  try {
    server = await startServer({ ...parsed.options, logger });
  } catch (err) {
    if (err instanceof ConfigurationError || (err as NodeJS.ErrnoException).code !== undefined) {
      console.error(`Error: ${(err as Error).message}`);
      return 1;
    }
    throw err;
  }
  guardProcess(logger);
  // Listen for the signals before announcing the server, so a supervisor that reacts to the
  // announcement at once still gets a clean stop.
  const stopped = new Promise<void>((resolve) => {
    const stop = (signal: string) => {
      logAt(logger, 0, 'Received signal, shutting down', { signal });
      resolve();
    };
    process.once('SIGINT', () => stop('SIGINT'));
    process.once('SIGTERM', () => stop('SIGTERM'));
  });
  process.stdout.write(`Serving on ${server.url}; kubeconfig: ${server.kubeconfigPath}\n`);
  announceServing();
  await stopped;
  await server.close();
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err) => {
    console.error('Error:', err);
    process.exit(1);
  },
);
