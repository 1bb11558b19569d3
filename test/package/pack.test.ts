// The package as users get it: built (lib/), packed with `npm pack`, installed from the tarball
// into an empty folder, then used by plain `node` (no TypeScript transform) and compiled by
// `tsc --strict` against its declarations. Install scripts are skipped, so better-sqlite3's
// native addon is never built: a memory-storage server must not need it.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');

const SMOKE = `
import { createRequire } from 'node:module';
import { startServer } from 'kube-lite-apiserver';
import { createClient, StatusError } from 'kube-lite-apiserver/client';
import { protobufCodec } from 'kube-lite-apiserver/client/protobuf';

const server = await startServer({ storage: 'memory' });
const field = (name) => Buffer.from(server.kubeconfig.match(new RegExp(name + ': (\\\\S+)'))[1], 'base64').toString();
const credentials = { clientCertificate: { cert: field('client-certificate-data'), key: field('client-key-data') } };
const client = createClient({ server: server.url, tls: { ca: server.caCert }, credentials: { get: async () => credentials, invalidate() {} }, namespace: 'default', source: 'inline' });
const cms = client.coreV1.configMaps('default');
await cms.create({ metadata: { name: 'hello' }, data: { greeting: 'hi' } });
const got = await cms.get('hello');
let missing;
try {
  await cms.get('absent');
} catch (e) {
  missing = { isStatusError: e instanceof StatusError, code: e.code, reason: e.reason };
}
const pb = createClient({ server: server.url, tls: { ca: server.caCert }, credentials: { get: async () => credentials, invalidate() {} }, namespace: 'default', source: 'inline' }, { codec: await protobufCodec() });
const viaProtobuf = await pb.coreV1.configMaps('default').get('hello');
pb.close();
const cache = createRequire(import.meta.url).cache;
const nativeLoaded = Object.keys(cache).filter((k) => /better-sqlite3|etcd3/.test(k));
client.close();
await server.close();
console.log(JSON.stringify({ data: got.data, protobufData: viaProtobuf.data, missing, nativeLoaded }));
`;

const CONSUMER = `
import { startServer, type RunningServer, type StartServerOptions } from 'kube-lite-apiserver';
import { createClient, StatusError, ExpiredError, informer, type ClientConfig } from 'kube-lite-apiserver/client';
import type { coreV1, rbacV1 } from 'kube-lite-apiserver/types';
import { protobufCodec } from 'kube-lite-apiserver/client/protobuf';

export async function main(config: ClientConfig): Promise<void> {
  const options: StartServerOptions = { storage: 'memory' };
  const server: RunningServer = await startServer(options);
  const client = createClient(config);
  const binary = createClient(config, { codec: await protobufCodec() });
  const list: coreV1.PodList = await binary.coreV1.pods('ns').list({ limit: 10 });
  const cm: coreV1.ConfigMap = await client.coreV1.configMaps('default').get('x');
  const data: Record<string, string> | undefined = cm.data;
  const binding: rbacV1.ClusterRoleBinding = await client.rbacV1.clusterRoleBindings().get('cluster-admin');
  await client.coreV1.pods('ns').status.patch('p', { status: { phase: 'Running' } }, { type: 'merge' });
  await client.coreV1.pods('ns').eviction.create('p', { metadata: { name: 'p' } });
  for await (const e of client.coreV1.configMaps('default').watch({ allowWatchBookmarks: true })) console.log(e.type, e.object.data);
  // @ts-expect-error a virtual kind serves create only
  await client.authenticationV1.tokenReviews().get('x');
  // @ts-expect-error cluster-scoped: no namespace argument
  client.rbacV1.clusterRoles('ns');
  informer(client.coreV1.configMaps('default'), { onAdd: (o: coreV1.ConfigMap) => console.log(o.metadata?.name) });
  console.log(data, binding.subjects, list.items.length, StatusError.name, ExpiredError.name);
  await server.close();
}
`;

describe('the packed package', () => {
  let work: string;
  let app: string;

  beforeAll(() => {
    work = mkdtempSync(join(tmpdir(), 'pack-test-'));
    app = join(work, 'app');
    execFileSync(process.execPath, [join(ROOT, 'build-lib.mjs')], { cwd: ROOT, stdio: 'pipe' });
    execFileSync(npm, ['pack', '--ignore-scripts', '--pack-destination', work], { cwd: ROOT, stdio: 'pipe' });
    const tarball = readdirSync(work).find((f) => f.endsWith('.tgz'));
    mkdirSync(app);
    writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'app', private: true, type: 'module' }));
    // A TypeScript consumer brings Node's types itself (the declarations use them); nothing of the
    // package's own dependencies may be what provides them.
    const typesNode = `@types/node@${(JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { devDependencies: Record<string, string> }).devDependencies['@types/node']}`;
    execFileSync(npm, ['install', join(work, tarball as string), typesNode, '--ignore-scripts', '--prefer-offline', '--no-audit', '--no-fund'], { cwd: app, stdio: 'pipe' });
  }, 300_000);
  afterAll(() => work && rmSync(work, { recursive: true, force: true }));

  it('runs under plain node: a server on memory storage, the typed client (JSON and protobuf), StatusError', () => {
    writeFileSync(join(app, 'smoke.mjs'), SMOKE);
    const out = execFileSync(process.execPath, ['smoke.mjs'], { cwd: app, encoding: 'utf8' });
    expect(JSON.parse(out.trim().split('\n').pop() as string)).toEqual({
      data: { greeting: 'hi' },
      protobufData: { greeting: 'hi' },
      missing: { isStatusError: true, code: 404, reason: 'NotFound' },
      nativeLoaded: [],
    });
  }, 60_000);

  it('type-checks a consumer under tsc --strict against the declarations', () => {
    writeFileSync(join(app, 'consumer.ts'), CONSUMER);
    const args = ['--strict', '--noEmit', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--target', 'es2022', '--types', 'node', 'consumer.ts'];
    let output = '';
    try {
      execFileSync(process.execPath, [tsc, ...args], { cwd: app, encoding: 'utf8' });
    } catch (e) {
      output = String((e as { stdout?: string }).stdout);
    }
    expect(output).toBe('');
  }, 120_000);
});
