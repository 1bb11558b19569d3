// The hostile requests of each write verb, content type and patch type, for one target kind.
import { gzipSync } from 'node:zlib';
import type protobuf from 'protobufjs';
import type { JsonObject } from '../../runtime/api/protobuf/index.js';
import { Entries, Raw, clone, toCbor, toJson, toPlain, toYaml } from './body-tree.js';
import { badUtf8String, deepNest, mutate } from './mutations.js';
import type { Prng } from './prng.js';
import { schemaSites, type Site } from './schema-sites.js';
import { FUZZ_NAMESPACE, withName, type Target } from './targets.js';
import { cborHostility, damage, notAnObject, protobufBody, yamlHostility } from './wire-hostility.js';

export type Format = 'json' | 'yaml' | 'protobuf' | 'cbor';

export interface Op {
  name: string;
  method: 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  contentType: string;
  format: Format;
}

const PROTOBUF = 'application/vnd.kubernetes.protobuf';

export const OPS: Op[] = [
  { name: 'create json', method: 'POST', contentType: 'application/json', format: 'json' },
  { name: 'create yaml', method: 'POST', contentType: 'application/yaml', format: 'yaml' },
  { name: 'create protobuf', method: 'POST', contentType: PROTOBUF, format: 'protobuf' },
  { name: 'create cbor', method: 'POST', contentType: 'application/cbor', format: 'cbor' },
  { name: 'update json', method: 'PUT', contentType: 'application/json', format: 'json' },
  { name: 'update yaml', method: 'PUT', contentType: 'application/yaml', format: 'yaml' },
  { name: 'update protobuf', method: 'PUT', contentType: PROTOBUF, format: 'protobuf' },
  { name: 'update cbor', method: 'PUT', contentType: 'application/cbor', format: 'cbor' },
  { name: 'json patch', method: 'PATCH', contentType: 'application/json-patch+json', format: 'json' },
  { name: 'merge patch', method: 'PATCH', contentType: 'application/merge-patch+json', format: 'json' },
  { name: 'strategic merge patch', method: 'PATCH', contentType: 'application/strategic-merge-patch+json', format: 'json' },
  { name: 'apply yaml', method: 'PATCH', contentType: 'application/apply-patch+yaml', format: 'yaml' },
  { name: 'apply cbor', method: 'PATCH', contentType: 'application/apply-patch+cbor', format: 'cbor' },
  { name: 'delete json', method: 'DELETE', contentType: 'application/json', format: 'json' },
  { name: 'delete yaml', method: 'DELETE', contentType: 'application/yaml', format: 'yaml' },
  { name: 'delete protobuf', method: 'DELETE', contentType: PROTOBUF, format: 'protobuf' },
  { name: 'delete cbor', method: 'DELETE', contentType: 'application/cbor', format: 'cbor' },
];

export interface HostileRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: Buffer;
  /** What was sent, short enough for a failure message. */
  what: string;
  /** Dry run: even a 2xx answer must leave storage as it was. */
  dryRun: boolean;
  /** The patch type or verb kube-apiserver itself may answer 500 to (see oracle.ts). */
  op: string;
  /** The one code kube-apiserver answers, where the body alone decides it. */
  expectStatus?: number;
}

export interface RequestContext {
  prng: Prng;
  target: Target;
  /** The stored object as last read (update bodies start from it). */
  current: Record<string, unknown>;
  root: protobuf.Root;
  /** A fresh name for a create. */
  newName: string;
}

const DELETE_OPTIONS = 'io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions';
const DELETE_OPTIONS_MESSAGE = 'k8s.io.apimachinery.pkg.apis.meta.v1.DeleteOptions';
const EVICTION_MESSAGE = 'k8s.io.api.policy.v1.Eviction';
let deleteOptionSites: Site[] | undefined;

function encode(ctx: RequestContext, format: Format, tree: unknown, messageName: string | undefined, fallback: Record<string, unknown>): { body: Buffer; what?: string } {
  switch (format) {
    case 'json':
      return { body: toJson(tree) };
    case 'yaml':
      return { body: toYaml(tree) };
    case 'cbor':
      return { body: toCbor(tree) };
    case 'protobuf': {
      if (!messageName) return { body: toJson(tree), what: 'JSON under the protobuf content type' };
      const made = protobufBody(ctx.prng, ctx.root, messageName, toPlain(tree) as JsonObject, fallback as JsonObject);
      return { body: made.body, what: made.what };
    }
  }
}

/** Format-level hostility mixed into a share of the bodies of every op. */
function wireLevel(ctx: RequestContext, format: Format, body: Buffer, kind: string): { body: Buffer; what: string } | undefined {
  const { prng } = ctx;
  if (format === 'protobuf') return undefined; // protobufBody already breaks envelopes
  const r = prng.next();
  if (r < 0.12) return damage(prng, body);
  if (r < 0.16) return notAnObject(prng, format);
  if (format === 'yaml' && r < 0.3) return yamlHostility(prng, ctx.target.apiVersion, kind, ctx.newName);
  if (format === 'cbor' && r < 0.3) return cborHostility(prng);
  return undefined;
}

function query(params: Record<string, string | undefined>): string {
  const entries = Object.entries(params).filter(([, v]) => v !== undefined) as Array<[string, string]>;
  return entries.length ? '?' + new URLSearchParams(entries).toString() : '';
}

function commonParams(prng: Prng): { params: Record<string, string | undefined>; dryRun: boolean } {
  const dryRun = prng.chance(0.15);
  return {
    dryRun,
    params: { dryRun: dryRun ? 'All' : undefined, fieldValidation: prng.chance(0.3) ? prng.pick(['Strict', 'Warn', 'Ignore', 'bogus']) : undefined },
  };
}

/** A JSON pointer to a schema place, sometimes bent out of shape. */
function pointer(prng: Prng, sites: Site[]): string {
  const path = prng.pick(sites).path.map((s) => String(s).replace(/~/g, '~0').replace(/\//g, '~1'));
  const text = '/' + path.join('/');
  switch (prng.int(12)) {
    case 0:
      return '';
    case 1:
      return text.slice(1);
    case 2:
      return text + '/~2';
    case 3:
      return text + '/-';
    case 4:
      return text + '/99999999999999999999';
    case 5:
      return text + '/-1';
    case 6:
      return text + '/01';
    case 7:
      return '/' + '\u00ff\u0000';
    default:
      return text;
  }
}

function jsonPatch(ctx: RequestContext): { tree: unknown; what: string } {
  const { prng, target } = ctx;
  const sites = target.sites;
  const r = prng.int(100);
  if (r < 6) {
    // Each copy doubles the document: 2^25 copies of a 64 KiB value if nothing stops it.
    const ops: unknown[] = [{ op: 'add', path: '/metadata/annotations', value: { seed: 'x'.repeat(65_536) } }];
    for (let i = 0; i < 25; i++) ops.push({ op: 'copy', from: '/metadata/annotations', path: `/metadata/annotations/c${i}` });
    return { tree: ops, what: 'JSON Patch copy doubling 25 times' };
  }
  if (r < 9) {
    const ops = Array.from({ length: 10_001 }, () => ({ op: 'test', path: '/kind', value: target.def.kind }));
    return { tree: ops, what: '10001 operations' };
  }
  if (r < 13) return { tree: { op: 'add', path: '/metadata/labels/a', value: 'b' }, what: 'an object instead of a list of operations' };
  if (r < 16) return { tree: [{ op: 'test', path: '/metadata/labels', value: [null, 1] }], what: 'test against an array holding null' };
  const count = 1 + prng.int(4);
  const ops: unknown[] = [];
  const parts: string[] = [];
  for (let i = 0; i < count; i++) {
    const op = prng.pick<unknown>(['add', 'remove', 'replace', 'move', 'copy', 'test', 'test', 'bogus', '', null, 5]);
    const value = prng.pick<unknown>([
      'x',
      7,
      null,
      [],
      {},
      { a: [1, { b: null }] },
      Raw.text('1e400'),
      Raw.text('-9223372036854775809'),
      deepNest(prng.pick([1000, 100_000]), prng.chance(0.5)),
      badUtf8String(prng),
      'x'.repeat(prng.pick([10, 200_000])),
    ]);
    const entry: Record<string, unknown> = { op, path: pointer(prng, sites) };
    if (prng.chance(0.8)) entry.value = value;
    if (op === 'move' || op === 'copy' || prng.chance(0.1)) entry.from = pointer(prng, sites);
    if (prng.chance(0.05)) delete entry.path;
    const item = prng.chance(0.05) ? prng.pick<unknown>(['add', 1, null, [entry]]) : entry;
    ops.push(prng.chance(0.05) ? new Entries([...Object.entries(entry), ['op', 'remove']]) : item);
    parts.push(`${String(op)} ${String(entry.path).slice(0, 60)}`);
  }
  return { tree: ops, what: `JSON Patch [${parts.join('; ')}]` };
}

/** Strategic merge patch directives at random places of a patch. */
function directives(prng: Prng, patch: Record<string, unknown>, target: Target): string {
  const lists = target.sites.filter((s) => s.type === 'array');
  const objects = target.sites.filter((s) => s.type === 'object' && s.path.length < 4);
  const pick = prng.int(7);
  const at = (sites: Site[]) => (sites.length ? prng.pick(sites).path : ['metadata']);
  const place = (path: Array<string | number>, key: string, value: unknown) => {
    let node: Record<string, unknown> = patch;
    for (const seg of path.filter((s) => typeof s === 'string') as string[]) {
      const child = node[seg];
      node = node[seg] = child && typeof child === 'object' && !Array.isArray(child) ? (child as Record<string, unknown>) : {};
    }
    node[key] = value;
  };
  const value = prng.pick<unknown>(['delete', 'replace', 'merge', 'bogus', 1, null, [], {}]);
  switch (pick) {
    case 0: {
      const path = at(objects);
      place(path, '$patch', value);
      return `$patch ${JSON.stringify(value)} in .${path.join('.')}`;
    }
    case 1: {
      const path = at(lists).filter((s) => typeof s === 'string') as string[];
      const list = path.pop() ?? 'finalizers';
      place(path, list, prng.pick<unknown>([[{ $patch: value }], [{ $patch: 'delete' }, 'x'], [{ $patch: 'replace' }], [{ name: 'x', $patch: value }], [{}], ['x', { a: 1 }], [[1]]]));
      return `list directive at .${[...path, list].join('.')}`;
    }
    case 2: {
      const path = at(objects);
      place(path, '$retainKeys', prng.pick<unknown>(['x', [1], ['nope'], null, {}]));
      return `$retainKeys in .${path.join('.')}`;
    }
    case 3: {
      const path = at(lists).filter((s) => typeof s === 'string') as string[];
      const list = path.pop() ?? 'finalizers';
      place(path, `$setElementOrder/${list}`, prng.pick<unknown>(['x', [1, 2], [{}], [{ name: 'zz' }], null, [[]]]));
      return `$setElementOrder/${list} in .${path.join('.')}`;
    }
    case 4: {
      const path = at(lists).filter((s) => typeof s === 'string') as string[];
      const list = path.pop() ?? 'finalizers';
      place(path, `$deleteFromPrimitiveList/${list}`, prng.pick<unknown>(['x', [{}], [null], {}, [[1]]]));
      return `$deleteFromPrimitiveList/${list} in .${path.join('.')}`;
    }
    case 5: {
      const path = at(objects);
      place(path, prng.pick(['$bogus', '$setElementOrder/', '$deleteFromPrimitiveList/', '$retainKeys/x']), 'x');
      return `unknown directive in .${path.join('.')}`;
    }
    default:
      place([], 'metadata', { ...(patch.metadata as object), finalizers: [{ $patch: 'delete' }] });
      return 'a map directive in a list of strings';
  }
}

/** A patch document: a few of the object's places, each hostile or not. */
function partialPatch(ctx: RequestContext, strategic: boolean): { tree: unknown; what: string } {
  const { prng, target } = ctx;
  const base = clone(ctx.current);
  delete base.status;
  const m = mutate(prng, base, target.sites);
  if (strategic && prng.chance(0.5) && !(m.tree instanceof Entries)) {
    return { tree: m.tree, what: `${m.what}; ${directives(prng, m.tree as Record<string, unknown>, target)}` };
  }
  return m;
}

function deleteOptionsBody(ctx: RequestContext): { tree: unknown; what: string; plain: Record<string, unknown> } {
  deleteOptionSites ??= schemaSites(DELETE_OPTIONS);
  const { prng } = ctx;
  const base: Record<string, unknown> = { kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: 'Background' };
  if (prng.chance(0.7)) base.dryRun = ['All'];
  if (prng.chance(0.3)) base.preconditions = { uid: (ctx.current.metadata as Record<string, unknown>)?.uid ?? 'x' };
  const m = mutate(prng, base, deleteOptionSites);
  return { ...m, plain: base };
}

/** One hostile request of `op` against `ctx.target`. */
export function hostileRequest(op: Op, ctx: RequestContext): HostileRequest {
  const { prng, target } = ctx;
  const headers: Record<string, string> = { 'content-type': op.contentType, accept: 'application/json' };
  if (op.format === 'protobuf' && prng.chance(0.4)) headers.accept = `${PROTOBUF}, application/json`;
  const { params, dryRun: dryRunParam } = commonParams(prng);
  let dryRun = dryRunParam;
  let path = target.objectPath;
  let tree: unknown;
  let what: string;
  let messageName = target.def.protobufType;
  let fallback: Record<string, unknown> = ctx.current;
  let kind = target.def.kind;
  let opName = op.name;

  if (op.method === 'POST') {
    path = target.collectionPath;
    fallback = withName(target.sample, ctx.newName);
    if (target.def.kind === 'Pod' && prng.chance(0.3)) {
      path = `${target.objectPath}/eviction`;
      fallback = { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: target.name, namespace: FUZZ_NAMESPACE }, deleteOptions: { dryRun: ['All'] } };
      messageName = EVICTION_MESSAGE;
      kind = 'Eviction';
      const m = mutate(prng, fallback, [
        { path: ['deleteOptions', 'gracePeriodSeconds'], type: 'integer' },
        { path: ['deleteOptions', 'dryRun'], type: 'array' },
        { path: ['deleteOptions', 'preconditions', 'uid'], type: 'string' },
        { path: ['metadata', 'name'], type: 'string' },
        { path: ['metadata'], type: 'object' },
        { path: ['deleteOptions'], type: 'object' },
      ]);
      tree = m.tree;
      what = `eviction: ${m.what}`;
      opName = 'eviction';
    } else {
      const m = mutate(prng, fallback, target.sites);
      tree = m.tree;
      what = m.what;
    }
  } else if (op.method === 'PUT') {
    const subs = target.objectSubresources;
    if (subs.length && prng.chance(0.35)) path = `${target.objectPath}/${prng.pick(subs)}`;
    const base = clone(ctx.current);
    if (prng.chance(0.25)) delete (base.metadata as Record<string, unknown>).resourceVersion;
    const m = mutate(prng, base, target.sites);
    tree = m.tree;
    what = m.what;
  } else if (op.method === 'PATCH') {
    const subs = target.objectSubresources.filter((s) => s !== 'finalize');
    if (subs.length && prng.chance(0.3)) path = `${target.objectPath}/${prng.pick(subs)}`;
    if (op.contentType === 'application/json-patch+json') ({ tree, what } = jsonPatch(ctx));
    else if (op.contentType.startsWith('application/apply-patch')) {
      params.fieldManager = prng.chance(0.95) ? 'fuzz' : prng.pick(['', 'x'.repeat(200), 'bad\u00ffname']);
      if (prng.chance(0.3)) params.force = prng.pick(['true', 'false', 'bogus']);
      const base = clone(target.sample);
      const m = mutate(prng, base, target.sites);
      tree = m.tree;
      what = m.what;
    } else ({ tree, what } = partialPatch(ctx, op.contentType.includes('strategic')));
    if (prng.chance(0.1)) {
      const top = prng.pick<unknown>([null, [], 'x', 1, true]);
      tree = top;
      what = `top-level ${JSON.stringify(top)}`;
    }
  } else {
    const d = deleteOptionsBody(ctx);
    tree = d.tree;
    what = `DeleteOptions ${d.what}`;
    messageName = DELETE_OPTIONS_MESSAGE;
    fallback = d.plain;
    kind = 'DeleteOptions';
    // A DELETE with a body reads its options from the body alone (delete.go ignores the query
    // then), so a dryRun=All in the query does not make it a dry run: its outcome is the answer's.
    dryRun = false;
  }

  const encoded = encode(ctx, op.format, tree, messageName, fallback);
  let body = encoded.body;
  if (encoded.what) what = `${what}; ${encoded.what}`;
  const wire = wireLevel(ctx, op.format, body, kind);
  if (wire) {
    body = wire.body;
    what = `${what}; then ${wire.what}`;
  }
  return { method: op.method, path: path + query(params), headers, body, what, dryRun, op: opName };
}

/** Content types no write of the resource takes, on any verb. */
const UNKNOWN_CONTENT_TYPES = [
  'text/plain',
  'application/xml',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/json; charset=utf-16',
  'application/json;;;=',
  'garbage',
  'application/',
  '*/*',
  'application/*',
  'application/vnd.kubernetes.protobuf;stream=watch',
  'application/json-seq',
  'application/apply-patch+json',
  'application/cbor-seq',
  'APPLICATION/JSON-PATCH+JSON; x=' + 'y'.repeat(4000),
  'application/json\u00ff',
];

const PATCH_TYPES = OPS.filter((o) => o.method === 'PATCH').map((o) => o.contentType);

/** A write whose content type is one the verb does not take (patch types on POST, JSON on PATCH, nonsense anywhere). */
export function unknownContentTypeRequest(ctx: RequestContext): HostileRequest {
  const { prng, target } = ctx;
  const method = prng.pick(['POST', 'PUT', 'PATCH', 'DELETE'] as const);
  let contentType = prng.pick(UNKNOWN_CONTENT_TYPES);
  if (method === 'PATCH' && prng.chance(0.3)) contentType = prng.pick(['application/json', 'application/yaml', PROTOBUF, 'application/cbor']);
  if ((method === 'POST' || method === 'PUT') && prng.chance(0.3)) contentType = prng.pick(PATCH_TYPES);
  const body = toJson(method === 'POST' ? withName(target.sample, ctx.newName) : ctx.current);
  return {
    method,
    path: method === 'POST' ? target.collectionPath : target.objectPath,
    headers: { 'content-type': contentType, accept: 'application/json' },
    body,
    what: `${method} with content type ${JSON.stringify(contentType.slice(0, 60))}`,
    dryRun: false,
    op: 'unknown content type',
  };
}

/** Bodies past the request size limit: plain, and gzip-encoded ones that grow past it when inflated. */
export function oversizedRequest(ctx: RequestContext): HostileRequest {
  const { prng, target } = ctx;
  const big = { ...withName(target.sample, ctx.newName), fuzzPadding: 'x'.repeat(prng.pick([3 * 1024 * 1024 + 1, 6 * 1024 * 1024])) };
  const method = prng.pick(['POST', 'PUT', 'PATCH', 'DELETE'] as const);
  const contentType = method === 'PATCH' ? 'application/merge-patch+json' : 'application/json';
  let body = toJson(method === 'PUT' ? { ...ctx.current, fuzzPadding: big.fuzzPadding } : big);
  const headers: Record<string, string> = { 'content-type': contentType, accept: 'application/json' };
  let what = `${method} of a ${body.length}-byte body`;
  // kube-apiserver reads at most 3 MiB of a body and answers 413 beyond (limitedReadBody).
  let expectStatus: number | undefined = 413;
  if (prng.chance(0.5)) {
    body = gzipSync(body);
    headers['content-encoding'] = 'gzip';
    what = `${what}, gzip-encoded to ${body.length} bytes`;
    expectStatus = undefined;
  }
  return { method, path: method === 'POST' ? target.collectionPath : target.objectPath, headers, body, what, dryRun: false, op: 'oversized', expectStatus };
}
