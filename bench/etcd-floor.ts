// The floor of CREATE on etcd: a bare node:https server (the ceiling's TLS material and socket
// options) whose POST reads the body, parses it, gives it a uid, creates it through the server's
// own etcd storage (runtime/storage/etcd.ts: its client, the create transaction, a prefix watch
// taking every event as the watch cache's does) and answers 201 with the stored object and its
// resourceVersion. The storage path with no API machinery on top: the server against it says what
// the machinery costs, it against raw etcd3 puts what the storage path does.
// Usage: etcd-floor.ts <data-dir> <port> <etcd endpoint> <etcd prefix>
import { randomUUID } from 'node:crypto';
import { EtcdStorage } from '../runtime/storage/etcd.js';
import { bareHttpsServer } from './bare-https.js';

const [dataDir, port, endpoint, prefix] = process.argv.slice(2);
const storage = new EtcdStorage({ endpoints: [endpoint], prefix, historyWindowMs: 0 });
let closing = false;
// etcd sends every create's event and the storage decodes it, as for the watch cache; nothing more.
storage.watch('/registry/', { afterRevision: 0, prefix: true }, {
  onEvent: () => undefined,
  onError: (error) => {
    if (closing) return;
    process.stderr.write(`etcd-floor: the watch failed: ${error.message}\n`);
    process.exit(1);
  },
});

/** The bench's bodies are a few hundred bytes; a larger one is refused, not held. */
const MAX_BODY_BYTES = 1 << 20;

const server = bareHttpsServer(dataDir, (req, res) => {
  const chunks: Buffer[] = [];
  let bytes = 0;
  req.on('data', (chunk: Buffer) => {
    bytes += chunk.length;
    if (bytes <= MAX_BODY_BYTES) chunks.push(chunk);
    else if (!res.headersSent) {
      res.writeHead(413, { connection: 'close' }).end();
      req.destroy();
    }
  });
  req.on('end', () => {
    const answer = (status: number, body: string) => {
      res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
      res.end(body);
    };
    let obj: { metadata: Record<string, unknown> };
    try {
      obj = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      if (typeof obj.metadata?.name !== 'string') throw new Error('no metadata.name');
    } catch {
      answer(400, '{"kind":"Status","code":400}');
      return;
    }
    obj.metadata.uid = randomUUID();
    storage.create(`/registry/configmaps/default/${obj.metadata.name as string}`, JSON.stringify(obj)).then(
      (kv) => {
        obj.metadata.resourceVersion = String(kv.modRevision);
        answer(201, JSON.stringify(obj));
      },
      (error: Error) => answer(500, JSON.stringify({ kind: 'Status', code: 500, message: error.message })),
    );
  });
});
server.listen(Number(port), '127.0.0.1', () => process.stdout.write('ready\n'));
process.on('SIGTERM', () => {
  closing = true;
  server.close();
  storage.close().finally(() => process.exit(0));
});
