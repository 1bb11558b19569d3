// Hostile input (issue 10): thousands of malformed writes against the real server, run as its own
// process over HTTPS with CBOR on, over every served kind, write verb, content type and patch type.
// Each answer must be a Status and no 5xx beyond those kube-apiserver gives (oracle.ts); a rejected
// or dry-run write must leave its target as it was and create nothing; afterwards the process must
// still run, answer /readyz within a second and hold at most twice the memory it had after a
// warm-up round (one hostile body of every op per kind); an accepted write must store an object
// that reads back as JSON, protobuf and CBOR.
//
// FUZZ_SEED=<n> replays a run (the seed is printed with every failure); FUZZ_BODIES=<n> sets the
// bodies per op (default 120, a few hundred per content type and verb when ops share one); and
// FUZZ_REPORT=<file> writes every failure and the slowest answers as JSON.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeObject, loadDescriptorRoot, messageNameResolver } from '../../runtime/api/protobuf/index.js';
import { generatedPath } from '../../runtime/generated-files.js';
import { startServerProcess, stopServerProcess, type ServerProcess } from '../support/server-process.js';
import { Inspector } from '../support/inspector.js';
import { freePort } from '../support/ports.js';
import { fuzzClient, type Answer, type FuzzClient } from './client.js';
import { kubeServerError, readStatus } from './oracle.js';
import { Prng } from './prng.js';
import { OPS, hostileRequest, type Op, oversizedRequest, unknownContentTypeRequest, type HostileRequest, type RequestContext } from './requests.js';
import { FUZZ_NAMESPACE, loadTargets, type Target } from './targets.js';

function positiveInteger(name: string, fallback: number): number {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isSafeInteger(value) || value <= 0) throw new Error(`${name} must be a positive integer, not ${process.env[name]}`);
  return value;
}

const SEED = positiveInteger('FUZZ_SEED', 20261126);
const BODIES = positiveInteger('FUZZ_BODIES', 120);
const OVERSIZED = Math.max(4, Math.ceil(BODIES / 20));
/** Rejected writes sent to a target between two reads of it. */
const CHECK_EVERY = 8;
const REQUEST_TIMEOUT_MS = 30_000;
const TEST_TIMEOUT_MS = 300_000;

const SERVER_FLAGS = [
  '--feature-gates=CBORServingAndStorage=true,DynamicResourceAllocation=true,StorageVersionMigrator=true',
  '--runtime-config=resource.k8s.io/v1beta2=true,storage.k8s.io/v1beta1=true,storagemigration.k8s.io/v1alpha1=true',
  // An accepted write may give the ClusterRole target an aggregationRule; the aggregation
  // controller would then rewrite its rules later, which reads as a rejected write's change.
  '--controllers=*,-clusterrole-aggregation',
];

const root = loadDescriptorRoot(generatedPath('protobuf/descriptors.json'));
const targets = loadTargets();
const stored = targets.filter((t) => !t.virtual);

interface Failure {
  cls: string;
  sample: string;
}

interface TargetState {
  current: Record<string, unknown>;
  text: string;
  /** Rejected (or dry-run) requests sent since `text` was read, each with the answer's code. */
  pending: string[];
}

let server: ServerProcess;
let client: FuzzClient;
let dir: string;
let startRss = 0;
/** Live memory (V8 heap in use plus external) after a full GC, read through the inspector. */
let inspector: Inspector | undefined;
let startLive = 0;
let endLive = 0;
const states = new Map<Target, TargetState>();
/** Names accepted creates made, per storage prefix (both Event versions share one). */
const created = new Map<string, Set<string>>();
const createdIn = (t: Target) => created.get(t.def.storagePrefix) ?? created.set(t.def.storagePrefix, new Set()).get(t.def.storagePrefix)!;
const allFailures: Array<Failure & { op: string }> = [];
const slowest: Array<{ ms: number; sample: string }> = [];
const rssAfter: Array<{ op: string; kib: number }> = [];
/** How often each of kube-apiserver's own 5xx answers came. */
const kube5xxSeen = new Map<string, number>();

const json = { accept: 'application/json', 'content-type': 'application/json' };

/** The resident set of a process, NaN once it is gone. */
function rssKiB(pid: number): number {
  try {
    const line = readFileSync(`/proc/${pid}/status`, 'utf8').match(/^VmRSS:\s+(\d+) kB/m);
    return line ? Number(line[1]) : NaN;
  } catch {
    return NaN;
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The server's V8 heap in use plus external memory after a full GC, in KiB. */
async function liveKiB(): Promise<number> {
  const heap = await inspector!.heapAfterGC();
  return Math.round((heap.heapUsed + heap.external) / 1024);
}

async function read(target: Target): Promise<Answer> {
  return client.send('GET', target.objectPath, { accept: 'application/json' });
}

/**
 * Puts the namespace's LimitRange back as the catalog has it. An accepted write may leave it
 * defaulting what LimitRanger admits into something kube's validation refuses (a default request
 * of a resource that may not be overcommitted, without the limit it then needs), so the catalog's
 * pod could no longer be made.
 */
async function resetLimitRanges(): Promise<void> {
  for (const limits of stored.filter((t) => t.def.kind === 'LimitRange')) {
    await client.send('DELETE', `${limits.objectPath}?gracePeriodSeconds=0`, { accept: 'application/json' });
    const state = states.get(limits);
    if (state) await rebaseline(limits, state);
    else await restore(limits);
  }
}

/** Puts the target back as the catalog has it, after an accepted write deleted it. */
async function restore(target: Target): Promise<void> {
  let limitsReset = false;
  for (let attempt = 0; attempt < 100; attempt++) {
    const got = await read(target);
    if (got.status === 404) {
      const made = await client.send('POST', target.collectionPath, json, Buffer.from(JSON.stringify(target.sample)));
      if (made.status === 201) return;
      if ((made.status === 422 || made.status === 403) && !limitsReset && target.def.kind !== 'LimitRange') {
        limitsReset = true;
        await resetLimitRanges();
        continue;
      }
      if (made.status !== 409) throw new Error(`recreating ${target.objectPath}: ${made.status} ${made.body.toString('utf8').slice(0, 300)}`);
    } else {
      const meta = (JSON.parse(got.body.toString('utf8')) as { metadata?: { finalizers?: string[] } }).metadata;
      if (meta?.finalizers?.length) {
        await client.send('PATCH', target.objectPath, { ...json, 'content-type': 'application/merge-patch+json' }, Buffer.from('{"metadata":{"finalizers":null}}'));
      }
      await client.send('DELETE', `${target.objectPath}?gracePeriodSeconds=0`, { accept: 'application/json' });
    }
    await sleep(100);
  }
  throw new Error(`${target.objectPath} could not be recreated`);
}

/**
 * Reads the target as stored now (recreating it first when gone or going); returns the formats it
 * does not read back in.
 */
async function rebaseline(target: Target, state: TargetState): Promise<string[]> {
  let got = await read(target);
  const going = got.status === 200 && (JSON.parse(got.body.toString('utf8')) as { metadata: { deletionTimestamp?: string } }).metadata.deletionTimestamp;
  if (got.status === 404 || going) {
    await restore(target);
    got = await read(target);
  }
  if (got.status !== 200) throw new Error(`reading ${target.objectPath}: ${got.status}`);
  state.text = got.body.toString('utf8');
  state.current = JSON.parse(state.text) as Record<string, unknown>;
  state.pending = [];
  // What a write stored must read back in the other formats too (a value Go cannot hold would not).
  const unreadable: string[] = [];
  for (const accept of ['application/vnd.kubernetes.protobuf', 'application/cbor']) {
    const other = await client.send('GET', target.objectPath, { accept });
    if (other.status !== 200) unreadable.push(`as ${accept}: ${other.status} ${other.body.toString('utf8').slice(0, 300)}`);
  }
  return unreadable;
}

const describeRequest = (r: HostileRequest) => `${r.method} ${r.path.slice(0, 200)} [${r.headers['content-type']?.slice(0, 60)}${r.headers['content-encoding'] ? ', gzip' : ''}] ${r.what.slice(0, 300)}`;

/** Classes failures by what went wrong and a message with its specifics (numbers, quoted text) blurred. */
const blur = (s: string) => s.replace(/"[^"]*"/g, '"…"').replace(/\d+/g, '#').slice(0, 140);

/** Checks one answer; returns a failure for anything but a Status within kube's codes. */
function judge(req: HostileRequest, answer: Answer | Error): Failure | undefined {
  if (answer instanceof Error) return { cls: `no answer: ${blur(answer.message)}`, sample: describeRequest(req) };
  if (req.expectStatus !== undefined && answer.status !== req.expectStatus) {
    return { cls: `${answer.status} where kube answers ${req.expectStatus}`, sample: `${describeRequest(req)} -> ${answer.body.toString('utf8').slice(0, 300)}` };
  }
  if (answer.status >= 200 && answer.status < 300) return undefined;
  const status = readStatus(answer, root);
  if (typeof status === 'string') return { cls: `${answer.status} not a Status: ${blur(status)}`, sample: `${describeRequest(req)} -> ${status.slice(0, 300)}` };
  if (answer.status < 500) return undefined;
  const kube = kubeServerError(req.op, req.method, status);
  if (kube) {
    kube5xxSeen.set(kube.why, (kube5xxSeen.get(kube.why) ?? 0) + 1);
    return undefined;
  }
  return { cls: `${answer.status} ${String(status.reason ?? '')}: ${blur(String(status.message))}`, sample: `${describeRequest(req)} -> ${String(status.message).slice(0, 400)}` };
}

async function checkPending(target: Target, state: TargetState, failures: Failure[]): Promise<void> {
  if (!state.pending.length || target.virtual) return;
  const got = await read(target);
  const now = got.body.toString('utf8');
  if (now !== state.text) {
    failures.push({
      cls: 'rejected or dry-run write changed storage',
      sample: `${target.objectPath} changed after ${state.pending.length} rejected writes: ${state.pending.join(' | ').slice(0, 2000)}`,
    });
  }
  await rebaseline(target, state);
}

/** The object an accepted create answered with, in whichever format it came. */
function createdObject(answer: Answer): Record<string, unknown> {
  const type = String(answer.headers['content-type'] ?? '');
  if (type.startsWith('application/vnd.kubernetes.protobuf')) return decodeObject(root, new Uint8Array(answer.body), messageNameResolver(root)).object;
  return JSON.parse(answer.body.toString('utf8')) as Record<string, unknown>;
}

type Make = (ctx: RequestContext) => HostileRequest;

async function fuzzTarget(label: string, target: Target, count: number, make: Make, failures: Failure[]): Promise<void> {
  const state = states.get(target)!;
  const prng = new Prng(SEED).fork(`${label}/${target.collectionPath}`);
  for (let i = 0; i < count; i++) {
    const newName = `fz-${label.replace(/\W+/g, '-')}-${i}`;
    const ctx: RequestContext = { prng, target, current: state.current, root, newName };
    const req = make(ctx);
    let answer: Answer | Error;
    const started = performance.now();
    try {
      answer = await client.send(req.method, req.path, req.headers, req.body);
    } catch (e) {
      answer = e as Error;
    }
    slowest.push({ ms: Math.round(performance.now() - started), sample: describeRequest(req) });
    const failure = judge(req, answer);
    if (failure) failures.push({ ...failure, sample: `#${i} ${failure.sample}` });
    try {
      await settle(target, state, req, answer, failures);
    } catch (e) {
      failures.push({ cls: `target unreadable after a write: ${blur((e as Error).message)}`, sample: `#${i} ${describeRequest(req)}` });
      return;
    }
  }
  try {
    await checkPending(target, state, failures);
  } catch (e) {
    failures.push({ cls: `target unreadable after a write: ${blur((e as Error).message)}`, sample: target.objectPath });
  }
}

/** Accepted writes become the new expected state; rejected ones are checked to have changed nothing. */
async function settle(target: Target, state: TargetState, req: HostileRequest, answer: Answer | Error, failures: Failure[]): Promise<void> {
  const accepted = !(answer instanceof Error) && answer.status >= 200 && answer.status < 300;
  if (accepted && !(answer instanceof Error) && req.method === 'POST' && !req.path.includes('/eviction')) {
    const name = (createdObject(answer).metadata as { name?: string } | undefined)?.name;
    if (name && !req.dryRun) createdIn(target).add(name);
  }
  if (target.virtual) return;
  if (accepted && !req.dryRun) {
    for (const u of await rebaseline(target, state)) failures.push({ cls: 'accepted write stored an object that does not read back', sample: `${describeRequest(req)} -> ${u}` });
  }
  else {
    state.pending.push(`${describeRequest(req)} -> ${answer instanceof Error ? answer.message : answer.status}`);
    if (state.pending.length >= CHECK_EVERY) await checkPending(target, state, failures);
  }
}

/** Objects of the target's kind in the fuzz's scope that no accepted create made. */
async function strayObjects(target: Target): Promise<string[]> {
  if (target.virtual) return [];
  const list = await client.send('GET', target.collectionPath, { accept: 'application/json' });
  const items = (JSON.parse(list.body.toString('utf8')) as { items: Array<{ metadata: { name: string; namespace?: string } }> }).items;
  const known = createdIn(target);
  const stray = items.map((i) => i.metadata.name).filter((n) => n.startsWith('fz-') && !known.has(n));
  // Reported once: later ops are not blamed for it.
  for (const n of stray) known.add(n);
  return stray;
}

async function fuzzOp(label: string, count: number, applicable: (t: Target) => boolean, make: Make): Promise<Failure[]> {
  const failures: Failure[] = [];
  const chosen = targets.filter(applicable);
  const per = Math.ceil(count / chosen.length);
  await Promise.all(chosen.map((t) => fuzzTarget(label, t, per, make, failures)));
  for (const t of chosen) {
    try {
      const stray = await strayObjects(t);
      if (stray.length) failures.push({ cls: 'rejected create stored an object', sample: `${t.collectionPath}: ${stray.join(', ')}` });
    } catch (e) {
      failures.push({ cls: `collection unreadable: ${blur((e as Error).message)}`, sample: t.collectionPath });
    }
  }
  allFailures.push(...failures.map((f) => ({ ...f, op: label })));
  rssAfter.push({ op: label, kib: rssKiB(server.child.pid!) });
  return failures;
}

function expectNoFailures(label: string, failures: Failure[]): void {
  const classes = new Map<string, { count: number; sample: string }>();
  for (const f of failures) {
    const c = classes.get(f.cls) ?? { count: 0, sample: f.sample };
    c.count++;
    classes.set(f.cls, c);
  }
  const report = [...classes].map(([cls, c]) => `  ${c.count}x ${cls}\n     e.g. ${c.sample}`).join('\n');
  expect(failures.length, `FUZZ_SEED=${SEED} FUZZ_BODIES=${BODIES}, ${label}: ${failures.length} failures in ${classes.size} classes\n${report}`).toBe(0);
}

const forOp = (op: Op) => (t: Target) => op.method === 'POST' || !t.virtual;

describe('hostile input', () => {
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'fuzz-'));
    // The inspector port opens nothing until SIGUSR1; it lets the memory check read live memory
    // after a full GC, which RSS (holding whatever the allocator kept) does not tell.
    const inspectPort = await freePort();
    server = await startServerProcess(dir, SERVER_FLAGS, [`--inspect-port=127.0.0.1:${inspectPort}`]);
    server.child.kill('SIGUSR1');
    inspector = await Inspector.connect(inspectPort);
    client = fuzzClient(server.url, server.creds, REQUEST_TIMEOUT_MS);
    const ns = await client.send('POST', '/api/v1/namespaces', json, Buffer.from(JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: FUZZ_NAMESPACE } })));
    if (ns.status !== 201) throw new Error(`namespace: ${ns.status} ${ns.body.toString('utf8')}`);
    for (const t of stored) {
      const made = await client.send('POST', t.collectionPath, json, Buffer.from(JSON.stringify(t.sample)));
      if (made.status !== 201) throw new Error(`${t.collectionPath}: ${made.status} ${made.body.toString('utf8')}`);
      const state: TargetState = { current: {}, text: '', pending: [] };
      states.set(t, state);
      await rebaseline(t, state);
    }
    for (const t of targets.filter((t) => t.virtual)) states.set(t, { current: t.sample, text: '', pending: [] });
  }, 120_000);

  afterAll(async () => {
    client?.close();
    inspector?.close();
    await stopServerProcess(server);
    if (process.env.FUZZ_REPORT) {
      slowest.sort((a, b) => b.ms - a.ms);
      writeFileSync(process.env.FUZZ_REPORT, JSON.stringify({ failures: allFailures, kube5xx: Object.fromEntries(kube5xxSeen), slowest: slowest.slice(0, 40), startRss, startLive, endLive, rssAfter }, null, 1));
    }
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  // The baseline of memory is taken after one hostile body of every op per kind: V8 sizes its heap
  // to the first large bodies once, and that growth is no leak.
  it('warm-up: one hostile body of every op per kind', async () => {
    const failures: Failure[] = [];
    for (const op of OPS) failures.push(...(await fuzzOp(`warm-up ${op.name}`, targets.length, forOp(op), (ctx) => hostileRequest(op, ctx))));
    await sleep(500);
    startRss = rssKiB(server.child.pid!);
    startLive = await liveKiB();
    expectNoFailures('warm-up', failures);
  }, TEST_TIMEOUT_MS);

  for (const op of OPS) {
    it(`${op.name}: ${BODIES} bodies across the kinds`, async () => {
      expectNoFailures(`op "${op.name}"`, await fuzzOp(op.name, BODIES, forOp(op), (ctx) => hostileRequest(op, ctx)));
    }, TEST_TIMEOUT_MS);
  }

  it(`unknown content types: ${BODIES} writes`, async () => {
    expectNoFailures('unknown content types', await fuzzOp('unknown content type', BODIES, (t) => !t.virtual, unknownContentTypeRequest));
  }, TEST_TIMEOUT_MS);

  it(`oversized bodies: ${OVERSIZED} writes`, async () => {
    const chosen = (t: Target) => stored.indexOf(t) >= 0 && stored.indexOf(t) < OVERSIZED;
    expectNoFailures('oversized bodies', await fuzzOp('oversized', OVERSIZED, chosen, oversizedRequest));
  }, TEST_TIMEOUT_MS);

  it('leaves the process alive, ready within a second, and its memory within twice the start', async () => {
    expect(server.child.exitCode, 'the server process exited').toBeNull();
    expect(server.child.signalCode, 'the server process was killed').toBeNull();
    // A loaded machine may stall one request: up to three tries, each of which must answer in 1 s.
    let ready: { status: number; ms: number } | undefined;
    for (let attempt = 0; attempt < 3 && !(ready && ready.status === 200 && ready.ms < 1000); attempt++) {
      const started = performance.now();
      try {
        const answer = await Promise.race([client.send('GET', '/readyz', {}), sleep(1000).then(() => undefined)]);
        ready = { status: answer?.status ?? 0, ms: answer ? performance.now() - started : Infinity };
      } catch {
        ready = { status: 0, ms: Infinity };
      }
    }
    expect(ready, '/readyz within 1 s').toMatchObject({ status: 200 });
    expect(ready!.ms).toBeLessThan(1000);
    // What the server still holds after a full GC: a leak grows it; RSS also keeps what the
    // allocator has not handed back, which swings from run to run (one CI run: 716 MB after, 312 MB
    // before; a run of this file alone: live 56 -> 69 MB while RSS went 494 -> 384 MB), so RSS is
    // reported, not bounded.
    const live = (endLive = await liveKiB());
    const rss = rssKiB(server.child.pid!);
    expect(live, `live memory ${live} KiB after the fuzz, ${startLive} KiB before (RSS ${rss} KiB, ${startRss} before)`).toBeLessThanOrEqual(2 * startLive);
  }, 60_000);
});
