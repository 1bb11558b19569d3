// The one walk that fills a kind's Go struct from a decoded body (decodeIntoStruct: the type check,
// unknown members dropped, nulls left as Go leaves them, members counted) against the sequence of
// walks it replaced (fill-struct-oracle.ts), over every served kind's upstream fixture and
// thousands of hostile variants of them: wrong types at every depth, nulls in lists and maps,
// unknown members inside lists of objects, __proto__ and constructor members, number literals Go
// reads differently, nesting to the body limit. Both must give the same first complaint, and when
// there is none the same unknown paths in the same order, the same object byte for byte and the
// same member count. Then the server itself: such bodies over HTTPS, and bodies 10,000 deep.
import { readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resources } from '../../generated/registry.js';
import { parseJsonBody } from '../../runtime/api/serializers.js';
import { decodeIntoStruct } from '../../runtime/machinery/go-decode/index.js';
import { GoTypes } from '../../runtime/machinery/go-decode/go-types.js';
import { MAX_NESTING_DEPTH } from '../../runtime/machinery/nesting.js';
import { generatedSchemaIndex, type JsonSchema } from '../../runtime/machinery/openapi-schema.js';
import { useMemoryServer } from '../support/memory-server.js';
import { UPSTREAM_DIR, upstreamAvailable } from '../support/upstream.js';
import { memberCount, oldDecode } from './fill-struct-oracle.js';

const TESTDATA = join(UPSTREAM_DIR, 'testdata');
const present = upstreamAvailable();
const fixtureName = (r: { group: string; version: string; kind: string }) => `${r.group || 'core'}.${r.version}.${r.kind}`;
const kinds = present ? resources.filter((r) => generatedSchemaIndex().component(r.openAPIName) && existsSync(join(TESTDATA, `${fixtureName(r)}.json`))) : [];

/** What each way made of one body text. */
interface Outcome {
  error?: string;
  unknown?: string[];
  object?: string;
  members: number;
}

/** Parses the text as readObject does and fills in the type fields; how many members that added. */
function parsed(text: string, apiVersion: string, kind: string): { obj: Record<string, unknown>; held: number; added: number } {
  const obj = parseJsonBody(Buffer.from(text), text) as Record<string, unknown>;
  const held = memberCount(obj);
  const added = (Object.hasOwn(obj, 'apiVersion') ? 0 : 1) + (Object.hasOwn(obj, 'kind') ? 0 : 1);
  obj.apiVersion = apiVersion;
  obj.kind = kind;
  return { obj, held, added };
}

function both(openAPIName: string, apiVersion: string, kind: string, text: string): { old: Outcome; now: Outcome } {
  const a = parsed(text, apiVersion, kind);
  const before = oldDecode(openAPIName, a.obj, a.held);
  const old: Outcome = before.error ? { error: before.error, members: a.held } : { unknown: before.unknown, object: JSON.stringify(a.obj), members: a.held };
  const b = parsed(text, apiVersion, kind);
  const after = decodeIntoStruct(openAPIName, b.obj)!;
  // A complaint ends decoding: what was dropped or counted until then is not looked at.
  const now: Outcome = after.error ? { error: after.error, members: a.held } : { unknown: after.unknown, object: JSON.stringify(b.obj), members: after.members - b.added };
  return { old, now };
}

// Replacement values, as JSON text: wrong types for every Go type, nulls inside containers,
// unknown members inside lists of objects, prototype names, literals Go reads by their text.
const VALUES = [
  '1',
  '1.5',
  '1e3',
  '1.0',
  '-7',
  '99999999999999999999',
  '3000000000',
  '"s"',
  '"1Gi"',
  '"1.5.5"',
  '"2008-01-01T01:01:01Z"',
  '"not a time"',
  '"%%%"',
  'true',
  '[]',
  '{}',
  'null',
  '[null]',
  '["a",null]',
  '[1,2,300]',
  '{"x":null}',
  '{"k":null,"v":"x"}',
  '[{"unknownX":1,"name":"n"},null,{"name":null,"alsoUnknown":{"y":[1]}}]',
  '{"__proto__":{"a":1},"constructor":null,"toString":"x"}',
  '[{"__proto__":null,"constructor":{"prototype":1}}]',
];
// Members added to an object: unknown ones, prototype names, nulls.
const MEMBERS = ['"unknownField":{"deep":[{"x":1}]}', '"__proto__":"p"', '"constructor":{}', '"toString":null', '"zz":null'];

/** JSON text of `value` with the value at `path` replaced by the raw text `raw`. */
function replaced(root: unknown, path: (string | number)[], raw: string): string {
  const MARK = '\u0000replaced\u0000';
  const copy = JSON.parse(JSON.stringify(root));
  let at = copy;
  for (const step of path.slice(0, -1)) at = at[step];
  at[path.at(-1)!] = MARK;
  return JSON.stringify(copy).replace(JSON.stringify(MARK), raw);
}

/** JSON text of `value` with `member` (raw text) added to the object at `path`, first or last. */
function withMember(root: unknown, path: (string | number)[], member: string, first: boolean): string {
  const MARK = '\u0000object\u0000';
  const copy = JSON.parse(JSON.stringify(root));
  let at = copy;
  for (const step of path.slice(0, -1)) at = at[step];
  const target = path.length === 0 ? copy : at[path.at(-1)!];
  const inner = JSON.stringify(target).slice(1, -1);
  const text = `{${first ? [member, inner] : [inner, member]}}`.replace(/^\{,|,\}$/g, (m) => (m === '{,' ? '{' : '}'));
  if (path.length === 0) return text;
  at[path.at(-1)!] = MARK;
  return JSON.stringify(copy).replace(JSON.stringify(MARK), text);
}

/** Every member and item of a value with its path, objects also listed as containers. */
function paths(value: unknown): { values: (string | number)[][]; objects: (string | number)[][] } {
  const values: (string | number)[][] = [];
  const objects: (string | number)[][] = [];
  const visit = (v: unknown, path: (string | number)[]) => {
    if (Array.isArray(v)) v.forEach((item, i) => (values.push([...path, i]), visit(item, [...path, i])));
    else if (typeof v === 'object' && v !== null) {
      objects.push(path);
      for (const [k, item] of Object.entries(v)) {
        values.push([...path, k]);
        visit(item, [...path, k]);
      }
    }
  };
  visit(value, []);
  return { values, objects };
}

/** `levels` objects nested as member "a" of each other, as text. */
const nested = (levels: number) => '{"a":'.repeat(levels - 1) + '{}' + '}'.repeat(levels - 1);

describe.runIf(present)('filling a struct in one walk gives what the walks it replaced gave', () => {
  it('covers kinds of every served group with a fixture', () => {
    expect(kinds.length).toBeGreaterThan(25);
  });

  it('the Go type behind every schema node is what the pruner and the null pass descend into', () => {
    // The one walk goes down where Go's decoder does; the old walks went down by the schema's shape.
    const index = generatedSchemaIndex();
    const types = new GoTypes(index);
    const isObject = (v: unknown) => typeof v === 'object' && v !== null && !Array.isArray(v);
    const seen = new Set<JsonSchema>();
    const differ: string[] = [];
    const visit = (schema: JsonSchema, where: string) => {
      if (seen.has(schema)) return;
      seen.add(schema);
      const resolved = index.resolve(schema);
      const kind = types.of(schema).kind;
      const byShape = resolved['x-kubernetes-preserve-unknown-fields'] ? 'none' : resolved.properties ? 'struct' : resolved.items ? 'slice' : isObject(resolved.additionalProperties) ? 'map' : 'none';
      const byGo = kind === 'struct' || kind === 'slice' || kind === 'map' ? kind : 'none';
      if (byShape !== byGo) differ.push(`${where}: ${byGo} / ${byShape}`);
      if (resolved.properties) for (const [k, v] of Object.entries(resolved.properties)) visit(v, `${where}.${k}`);
      if (resolved.items) visit(resolved.items, `${where}[]`);
      if (isObject(resolved.additionalProperties)) visit(resolved.additionalProperties as JsonSchema, `${where}{}`);
    };
    for (const name of Object.keys(index.all())) visit({ $ref: `#/components/schemas/${name}` }, name);
    expect(seen.size).toBeGreaterThan(1000);
    expect(differ).toEqual([]);
  });

  describe.each(kinds.map((r) => [fixtureName(r), r] as const))('%s', (name, def) => {
    const apiVersion = def.group ? `${def.group}/${def.version}` : def.version;

    it('and every hostile variant of its fixture', () => {
      const text = readFileSync(join(TESTDATA, `${name}.json`), 'utf8');
      const fixture = JSON.parse(text);
      const { values, objects } = paths(fixture);
      const bodies = [text];
      // Two replacement values per member, different ones at neighbouring members.
      values.forEach((path, i) => {
        bodies.push(replaced(fixture, path, VALUES[i % VALUES.length]));
        bodies.push(replaced(fixture, path, VALUES[(i * 7 + 3) % VALUES.length]));
      });
      objects.forEach((path, i) => bodies.push(withMember(fixture, path, MEMBERS[i % MEMBERS.length], i % 2 === 0)));
      // Deep values where nothing checks them, where they are refused, and where they are dropped.
      const deep = nested(MAX_NESTING_DEPTH - 24);
      bodies.push(withMember(fixture, [], `"unknownDeep":${deep}`, false));
      if (values.length > 0) bodies.push(replaced(fixture, values[values.length - 1], deep));
      bodies.push(withMember(fixture, ['metadata'], `"managedFields":[{"manager":"m","fieldsV1":${deep}}]`, false));

      const tally = { complaints: 0, unknown: 0, changed: 0 };
      const differ: string[] = [];
      for (const body of bodies) {
        const { old, now } = both(def.openAPIName, apiVersion, def.kind, body);
        if (JSON.stringify(now) !== JSON.stringify(old)) differ.push(`${body.slice(0, 400)}\n  old ${JSON.stringify(old).slice(0, 400)}\n  now ${JSON.stringify(now).slice(0, 400)}`);
        if (old.error) tally.complaints++;
        else if (old.unknown!.length > 0) tally.unknown++;
        if (!old.error && old.object !== JSON.stringify(JSON.parse(body))) tally.changed++;
      }
      expect(differ.slice(0, 3)).toEqual([]);
      // The variants reach every outcome: refused, pruned, changed.
      expect(tally.complaints).toBeGreaterThan(0);
      expect(tally.unknown).toBeGreaterThan(0);
      expect(tally.changed).toBeGreaterThan(0);
    });
  });
});

describe('bodies filled by the server', () => {
  const server = useMemoryServer();
  const PODS = '/api/v1/namespaces/default/pods';
  const CONFIGMAPS = '/api/v1/namespaces/default/configmaps';

  const pod = (name: string, containers: unknown) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { containers } });

  async function expectServing() {
    const ready = await server.raw('GET', '/readyz');
    expect(ready.status).toBe(200);
    expect(ready.body).toBe('ok');
  }

  it('drops unknown members inside lists of objects, warning of each in body order, and leaves nulls as Go does', async () => {
    const containers = [
      { name: 'a', image: 'i', bogus: 1, args: ['x', null], env: [{ name: 'E', value: null, extra: {} }] },
      { name: 'b', image: 'i', ports: [{ containerPort: 80, nope: true }], workingDir: null },
    ];
    const res = await server.send('POST', PODS, pod('unknown-in-lists', containers));
    expect(res.status).toBe(201);
    expect(res.warnings).toEqual([
      '299 - "unknown field \\"spec.containers[0].bogus\\""',
      '299 - "unknown field \\"spec.containers[0].env[0].extra\\""',
      '299 - "unknown field \\"spec.containers[1].ports[0].nope\\""',
    ]);
    const stored = (await server.send<{ spec: { containers: Record<string, unknown>[] } }>('GET', `${PODS}/unknown-in-lists`)).body.spec.containers;
    expect(stored[0].args).toEqual(['x', '']);
    expect(stored[0].env).toEqual([{ name: 'E' }]);
    expect(stored[0]).not.toHaveProperty('bogus');
    expect(stored[1].ports).toEqual([{ containerPort: 80, protocol: 'TCP' }]);
    expect(stored[1]).not.toHaveProperty('workingDir');
    await expectServing();
  });

  it('refuses the same body under Strict with every complaint at once, and stores nothing', async () => {
    const containers = [{ name: 'a', image: 'i', bogus: 1, ports: [{ containerPort: 80, nope: true }] }];
    const res = await server.send('POST', `${PODS}?fieldValidation=Strict`, pod('strict', containers));
    expect(res.status).toBe(400);
    expect(res.body.message).toBe('Pod in version "v1" cannot be handled as a Pod: strict decoding error: unknown field "spec.containers[0].bogus", unknown field "spec.containers[0].ports[0].nope"');
    expect((await server.send('GET', `${PODS}/strict`)).status).toBe(404);
    await expectServing();
  });

  it('gives a wrong type precedence over unknown members before it, and stores nothing', async () => {
    const containers = [{ name: 'a', image: 'i', bogus: 1, ports: [{ containerPort: 'eighty' }] }];
    const res = await server.send('POST', `${PODS}?fieldValidation=Strict`, pod('typed', containers));
    expect(res.status).toBe(400);
    expect(res.body.message).toBe('Pod in version "v1" cannot be handled as a Pod: json: cannot unmarshal string into Go struct field ContainerPort.spec.containers.ports.containerPort of type int32');
    expect((await server.send('GET', `${PODS}/typed`)).status).toBe(404);
    await expectServing();
  });

  it('keeps __proto__ and constructor as map keys and drops them as unknown members', async () => {
    const body = '{"apiVersion":"v1","kind":"ConfigMap","__proto__":{"polluted":1},"metadata":{"name":"proto","constructor":"c"},"data":{"__proto__":"p","constructor":"k","toString":null}}';
    const res = await server.send('POST', CONFIGMAPS, body);
    expect(res.status).toBe(201);
    expect(res.warnings).toEqual(['299 - "unknown field \\"__proto__\\""', '299 - "unknown field \\"metadata.constructor\\""']);
    const stored = await server.raw('GET', `${CONFIGMAPS}/proto`);
    const data = JSON.parse(stored.body).data;
    expect(Object.keys(data)).toEqual(['__proto__', 'constructor', 'toString']);
    expect([data.__proto__, data.constructor, data.toString]).toEqual(['p', 'k', '']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    await expectServing();
  });

  it('refuses bodies nested 10,000 and 10,001 levels with the nesting error, and stores nothing', async () => {
    for (const levels of [10_000, 10_001]) {
      const body = `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"deep-${levels}"},"data":{"k":${nested(levels - 3)}}}`;
      const res = await server.raw('POST', CONFIGMAPS, body);
      expect(res.status).toBe(400);
      expect(res.json<{ message: string }>().message).toMatch(/^the object provided is unrecognized \(must be of type ConfigMap\): couldn't get version\/kind; json parse error: invalid character '{' exceeded max depth/);
      expect((await server.send('GET', `${CONFIGMAPS}/deep-${levels}`)).status).toBe(404);
      await expectServing();
    }
  });
});
