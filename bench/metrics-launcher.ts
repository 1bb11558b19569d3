// Starts one server through the library, for the metrics rows: kube-apiserver has no flag that
// turns request metrics off, so the comparison needs startServer's `metrics` option.
//   node --import tsx bench/metrics-launcher.ts <port> <data-dir> <token-file> <on|off>
// Prints `ready` once it serves; SIGTERM closes it.
import { startServer } from '../runtime/index.js';

const [port, dataDir, tokenAuthFile, metrics] = process.argv.slice(2);
const server = await startServer({ port: Number(port), dataDir, tokenAuthFile, storage: 'sqlite', metrics: metrics !== 'off' });
process.once('SIGTERM', () => void server.close().then(() => process.exit(0)));
process.stdout.write('ready\n');
