// The typed client's rows of `npm run bench`:
//  - size: what importing one group version costs a user's bundle, esbuild-minified ESM, ours
//    (the transport and coreV1) beside @kubernetes/client-node's (KubeConfig and CoreV1Api), the
//    same use, built in the same run;
//  - speed: sequential GETs of one ConfigMap through the client against bare node:https requests
//    (keep-alive agent, same token, same path) on the server as users start it, alternating, the
//    median rate of each; the goal is a ratio of at least 0.8.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { build } from 'esbuild';
import { createClient } from '../client/index.js';
import { freePort } from '../test/support/ports.js';
import { npmStart, root } from './server.js';

const GETS = Number(process.env.BENCH_CLIENT_GETS ?? 2000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);

export interface ClientBench {
  oursKB: number;
  clientNodeKB: number;
  clientPerSecond: number[];
  barePerSecond: number[];
}

async function minifiedKB(source: string): Promise<number> {
  const out = await build({
    stdin: { contents: source, resolveDir: root, loader: 'ts' },
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    write: false,
    logLevel: 'silent',
  });
  return out.outputFiles.reduce((n, f) => n + f.contents.byteLength, 0) / 1024;
}

const OURS = `
import { Transport } from './client/core/transport.ts';
import { coreV1 } from './generated/client/core.v1.ts';
export const configMaps = (config: any, ns: string) => coreV1(new Transport(config)).configMaps(ns);
`;

const CLIENT_NODE = `
import { KubeConfig, CoreV1Api } from '@kubernetes/client-node';
export const configMaps = (kc: KubeConfig) => kc.makeApiClient(CoreV1Api);
`;

async function timed(n: number, once: () => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  for (let i = 0; i < n; i++) await once();
  return n / ((performance.now() - t0) / 1000);
}

export async function measureClient(): Promise<ClientBench> {
  const [oursKB, clientNodeKB] = [await minifiedKB(OURS), await minifiedKB(CLIENT_NODE)];

  const dataDir = mkdtempSync(join(tmpdir(), 'bench-client-'));
  const token = randomBytes(24).toString('hex');
  writeFileSync(join(dataDir, 'tokens.csv'), `${token},bench,bench-uid,"system:masters"\n`, { mode: 0o600 });
  const port = await freePort();
  const server = await npmStart(dataDir, port, ['--storage', 'memory', '--token-auth-file', join(dataDir, 'tokens.csv')], token);
  const ca = server.ca.toString();
  const credentials = { token };
  const client = createClient({ server: `https://127.0.0.1:${port}`, tls: { ca }, credentials: { get: async () => credentials, invalidate() {} }, namespace: 'default', source: 'bench' });
  const agent = new Agent({ keepAlive: true, ca });
  const path = '/api/v1/namespaces/default/configmaps/bench-client';
  const bare = () =>
    new Promise<unknown>((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port, path, agent, headers: { authorization: `Bearer ${token}`, accept: 'application/json' } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => (res.statusCode === 200 ? resolve(JSON.parse(Buffer.concat(chunks).toString())) : reject(new Error(`GET ${path}: ${res.statusCode}`))));
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end();
    });
  const cms = client.coreV1.configMaps('default');
  try {
    await cms.create({ metadata: { name: 'bench-client' }, data: { key: 'x'.repeat(512) } });
    await timed(200, () => cms.get('bench-client'));
    await timed(200, bare);
    const clientPerSecond: number[] = [];
    const barePerSecond: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      barePerSecond.push(await timed(GETS, bare));
      clientPerSecond.push(await timed(GETS, () => cms.get('bench-client')));
    }
    return { oursKB, clientNodeKB, clientPerSecond, barePerSecond };
  } finally {
    client.close();
    agent.destroy();
    await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
