// The CRD rows: CREATE of a custom resource whose CRD declares 30 spec fields and three CEL rules,
// as a ratio to CREATE of a ConfigMap on the same server in the same run (wrk, alternating; goal
// >= 0.7), and the time from a CRD's create to the first custom resource of it accepted (goal
// <= 100 ms; median of several CRDs, each polled with creates until one is 201). The server runs
// the TypeScript sources through bench/metrics-launcher.ts, on SQLite, as a user's would.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../test/support/ports.js';
import { expect, send, type Endpoint } from './https.js';
import { root, track } from './server.js';
import type { WrkResult, WrkRun } from './wrk.js';

const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
const CM = '/api/v1/namespaces/default/configmaps';
const FIRST_ACCEPTED_TRIES = Number(process.env.BENCH_CRD_STARTS ?? 7);

export interface CrdRows {
  configMap: WrkResult[];
  custom: WrkResult[];
  /** ms from each CRD's create request to its first custom resource's 201. */
  firstAccepted: number[];
}

type Alternate = (targets: Array<Omit<WrkRun, 'seconds'>>, prefixFor?: (round: number, target: number) => string) => Promise<WrkResult[][]>;

/** The 30 fields bench/wrk/load.lua's create-custom sends: s1..s10, i1..i10, b1..b5, e1..e5. */
function specSchema(): Record<string, unknown> {
  const properties: Record<string, unknown> = {};
  for (let i = 1; i <= 10; i++) properties[`s${i}`] = { type: 'string', maxLength: 64 };
  for (let i = 1; i <= 10; i++) properties[`i${i}`] = { type: 'integer', minimum: 0, maximum: 1000 };
  for (let i = 1; i <= 5; i++) properties[`b${i}`] = { type: 'boolean' };
  for (let i = 1; i <= 5; i++) properties[`e${i}`] = { type: 'string', enum: ['alpha', 'beta', 'gamma'] };
  return {
    type: 'object',
    properties,
    'x-kubernetes-validations': [
      { rule: 'self.i1 <= self.i10', message: 'i1 must not exceed i10' },
      { rule: "self.s1.startsWith('value')", message: 's1 must start with value' },
      { rule: 'self.b1 || self.i2 > 0', message: 'b1 or a positive i2' },
    ],
  };
}

function crd(plural: string, kind: string): string {
  return JSON.stringify({
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.bench.example.com` },
    spec: {
      group: 'bench.example.com',
      names: { plural, kind },
      scope: 'Namespaced',
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec: specSchema() } } } }],
    },
  });
}

const widget = (plural: string, kind: string, name: string): string =>
  JSON.stringify({ apiVersion: 'bench.example.com/v1', kind, metadata: { name }, spec: { s1: 'value-1', i1: 1, i2: 2, i10: 10, b1: true, e1: 'alpha' } });

/** Creates the CRD, then creates custom resources until one is accepted: the time the first took. */
async function timeToFirstAccepted(to: Endpoint, plural: string, kind: string): Promise<number> {
  const started = performance.now();
  await expect(201, to, 'POST', CRDS, crd(plural, kind));
  const path = `/apis/bench.example.com/v1/namespaces/default/${plural}`;
  for (let attempt = 0; ; attempt++) {
    const res = await send(to, 'POST', path, widget(plural, kind, `first-${attempt}`));
    if (res.status === 201) return performance.now() - started;
    if (res.status !== 404 || performance.now() - started > 30_000) throw new Error(`${plural}: the first custom resource got ${res.status}: ${res.body.toString()}`);
  }
}

export async function measureCrd(alternate: Alternate, log: (line: string) => void): Promise<CrdRows> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-crd-'));
  const token = randomBytes(24).toString('hex');
  const tokenFile = join(dir, 'tokens.csv');
  writeFileSync(tokenFile, `${token},bench,bench-uid,"system:masters"\n`, { mode: 0o600 });
  const port = await freePort();
  const child = track(spawn(process.execPath, ['--import', 'tsx', 'bench/metrics-launcher.ts', String(port), join(dir, 'data'), tokenFile, 'on'], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] }));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    await new Promise<void>((resolve, reject) => {
      child.once('exit', (code) => reject(new Error(`crd bench server exited with ${code}`)));
      child.stdout!.on('data', (d: Buffer) => d.toString().includes('ready') && resolve());
    });
    const to: Endpoint = { port, ca: readFileSync(join(dir, 'data', 'ca.crt')), token };
    log(`CRD: time from CRD create to the first custom resource accepted, ${FIRST_ACCEPTED_TRIES} CRDs`);
    const firstAccepted: number[] = [];
    for (let i = 0; i < FIRST_ACCEPTED_TRIES; i++) firstAccepted.push(await timeToFirstAccepted(to, `gadgets${i}`, `Gadget${i}`));
    log(`CRD: first accepted after ${firstAccepted.map((ms) => ms.toFixed(0)).join(', ')} ms`);

    await timeToFirstAccepted(to, 'widgets', 'Widget');
    log('CRD: CREATE of a Widget (30 fields, 3 CEL rules) and of a ConfigMap, alternating');
    const [configMap, custom] = await alternate(
      [
        { port, token, mode: 'create', path: CM },
        { port, token, mode: 'create-custom', path: '/apis/bench.example.com/v1/namespaces/default/widgets' },
      ],
      (round, target) => `crd${target}r${round + 1}`,
    );
    return { configMap, custom, firstAccepted };
  } finally {
    if (child.exitCode === null) child.kill('SIGTERM');
    await exited;
    rmSync(dir, { recursive: true, force: true });
  }
}
