// `npm start`: parse flags, start the server, print where it is, stop cleanly on SIGINT/SIGTERM.
// A bad flag or configuration prints one error line and exits 1, as kube-apiserver does.

import { ConfigurationError, startServer } from './index.js';
import { consoleLogger } from './server/context.js';
import { FlagError, parseFlags, USAGE } from './server/flags.js';

/** The last line of defence: a request that escapes every handler must not end the process. */
function guardProcess(): void {
  process.on('uncaughtException', (err) => console.error('uncaught exception (server continues):', err));
  process.on('unhandledRejection', (reason) => console.error('unhandled rejection (server continues):', reason));
}

async function main(argv: string[]): Promise<number> {
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

  let server;
  try {
    server = await startServer({ ...parsed.options, logger: consoleLogger(process.env.KUBE_LITE_VERBOSE === '1') });
  } catch (err) {
    if (err instanceof ConfigurationError || (err as NodeJS.ErrnoException).code !== undefined) {
      console.error(`Error: ${(err as Error).message}`);
      return 1;
    }
    throw err;
  }
  guardProcess();
  // Listen for the signals before announcing the server, so a supervisor that reacts to the
  // announcement at once still gets a clean stop.
  const stopped = new Promise<void>((resolve) => {
    const stop = (signal: string) => {
      console.error(`${signal} received, shutting down`);
      resolve();
    };
    process.once('SIGINT', () => stop('SIGINT'));
    process.once('SIGTERM', () => stop('SIGTERM'));
  });
  console.log(`Serving on ${server.url}; kubeconfig: ${server.kubeconfigPath}`);
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
