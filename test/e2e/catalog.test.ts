// The whole resource catalog through real kubectl: one multi-document manifest holding a valid
// object of every served kind (test/e2e/catalog/*.yaml, one file per kind) is applied client-side,
// each object is read back with `kubectl get`, whose columns must be kube-apiserver's
// (../shared/upstream/printer-columns.json), and a second apply with the other kubectl version
// must find nothing to change.
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { kindLifecycles } from '../../generated/lifecycle.js';
import { resources } from '../../generated/registry.js';
import { deprecationWarning, reached } from '../../runtime/machinery/lifecycle.js';
import { SERVER_RELEASE } from '../../runtime/server/api-lifecycle.js';
import { kubectlVersions, startKubectlServer, type KubectlServer } from '../support/kubectl.js';
import { UPSTREAM_DIR, upstreamAvailable } from '../support/upstream.js';

const CATALOG_DIR = join(import.meta.dirname, 'catalog');

/** What the catalog's alpha and beta kinds need switched on (each sample's first line says so too). */
const CATALOG_SERVER_OPTIONS = {
  featureGates: 'DynamicResourceAllocation=true,StorageVersionMigrator=true',
  runtimeConfig: 'resource.k8s.io/v1beta2=true,storage.k8s.io/v1beta1=true,storagemigration.k8s.io/v1alpha1=true',
};

interface CatalogEntry {
  file: string;
  apiVersion: string;
  /** kube's deprecation warning for the kind, when it is deprecated at 1.33. */
  deprecation?: string;
  kind: string;
  name: string;
  namespace?: string;
  plural: string;
  group: string;
  /** Virtual kinds (SelfSubjectReview) are created, never applied: nothing is stored to patch. */
  virtual: boolean;
}

function readCatalog(): { manifest: string; entries: CatalogEntry[] } {
  const files = readdirSync(CATALOG_DIR).filter((f) => f.endsWith('.yaml')).sort();
  const texts = files.map((f) => readFileSync(join(CATALOG_DIR, f), 'utf8'));
  const entries = files.map((file, i) => {
    const docs = parseAllDocuments(texts[i]!);
    if (docs.length !== 1) throw new Error(`${file}: one YAML document expected, found ${docs.length}`);
    const obj = docs[0]!.toJS() as { apiVersion: string; kind: string; metadata?: { name: string; namespace?: string } };
    const [group, version] = obj.apiVersion.includes('/') ? obj.apiVersion.split('/') : ['', obj.apiVersion];
    const def = resources.find((r) => r.group === group && r.version === version && r.kind === obj.kind);
    if (!def) throw new Error(`${file}: ${obj.apiVersion} ${obj.kind} is not served`);
    const virtual = def.virtual === true;
    const lifecycle = kindLifecycles.find((k) => k.group === group && k.version === version && k.kind === obj.kind);
    const deprecation = lifecycle && reached(lifecycle.deprecated, SERVER_RELEASE) ? deprecationWarning(lifecycle) : undefined;
    return { file, apiVersion: obj.apiVersion, kind: obj.kind, deprecation, name: obj.metadata?.name ?? '', namespace: obj.metadata?.namespace, plural: def.plural, group, virtual };
  });
  const stored = texts.filter((_, i) => !entries[i]!.virtual);
  return { manifest: stored.map((t) => t.trimEnd()).join('\n---\n') + '\n', entries };
}

const { manifest, entries: allEntries } = readCatalog();

/** What kubectl prints on stderr for requests to these kinds: each deprecation warning once (its warning writer deduplicates). */
const warningsFor = (list: CatalogEntry[]): string =>
  [...new Set(list.flatMap((e) => (e.deprecation ? [e.deprecation] : [])))].map((w) => `Warning: ${w}\n`).join('');
const entries = allEntries.filter((e) => !e.virtual);
const virtualEntries = allEntries.filter((e) => e.virtual);
const upstream = upstreamAvailable();
const printerColumns: Record<string, Array<{ name: string; priority: number }>> = upstream
  ? JSON.parse(readFileSync(join(UPSTREAM_DIR, 'printer-columns.json'), 'utf8'))
  : {};

let cluster: KubectlServer;
let manifestPath: string;

beforeAll(async () => {
  cluster = await startKubectlServer('e2e-catalog-', CATALOG_SERVER_OPTIONS, 30_000);
  manifestPath = join(cluster.dir, 'catalog.yaml');
  writeFileSync(manifestPath, manifest);
});

afterAll(async () => {
  await cluster?.close();
});

const kubectl = (bin: string, args: string[]) => cluster.kubectl(bin, args);

const resourceArg = (e: CatalogEntry): string => (e.group ? `${e.plural}.${e.group}` : e.plural);
const namespaceArgs = (e: CatalogEntry): string[] => (e.namespace ? ['-n', e.namespace] : []);
const expectedHeader = (e: CatalogEntry): string[] =>
  (printerColumns[e.group ? `${e.group}/${e.plural}` : e.plural] ?? printerColumns._default!).filter((c) => c.priority === 0).map((c) => c.name.toUpperCase());

/** Splits a kubectl table header into its column names (columns are separated by 3+ spaces). */
const headerColumns = (line: string): string[] => line.trim().split(/\s{3,}/);

const versions = kubectlVersions();
const [first, second] = versions;

describe.skipIf(!first?.path || !second?.path || !upstream)('the catalog through kubectl', () => {
  it(`applies one object of every kind with kubectl ${first!.version}`, async () => {
    const res = await kubectl(first!.path!, ['apply', '-f', manifestPath]);
    expect(res.stderr).toBe(warningsFor(entries));
    expect(res.code).toBe(0);
    const lines = res.stdout.trim().split('\n');
    expect(lines).toHaveLength(entries.length);
    for (const line of lines) expect(line).toMatch(/ created$/);
  });

  it.each(entries)('gets $kind $name with the columns kube-apiserver prints ($file)', async (entry) => {
    const res = await kubectl(second!.path!, ['get', resourceArg(entry), entry.name, ...namespaceArgs(entry)]);
    expect(res.stderr).toBe(warningsFor([entry]));
    const [header, row, ...rest] = res.stdout.trimEnd().split('\n');
    expect(rest).toEqual([]);
    expect(headerColumns(header!)).toEqual(expectedHeader(entry));
    // Events have no NAME column (LAST SEEN leads); every other kind's row starts with the name.
    if (expectedHeader(entry)[0] === 'NAME') expect(row!.split(/\s+/)[0]).toBe(entry.name);
    else expect(row!.split(/\s{3,}/)).toHaveLength(expectedHeader(entry).length);
  });

  it.each(virtualEntries)('creates the virtual $kind with kubectl create ($file)', async (entry) => {
    // --validate=false: kubectl's validation would ask apiextensions.k8s.io whether the kind is a CRD.
    const res = await kubectl(second!.path!, ['create', '--validate=false', '-f', join(CATALOG_DIR, entry.file), '-o', 'json']);
    expect(res.stderr).toBe('');
    const created = JSON.parse(res.stdout) as { kind: string; status?: { userInfo?: { username?: string; groups?: string[] } } };
    expect(created.kind).toBe(entry.kind);
    expect(created.status?.userInfo?.groups).toContain('system:masters');
  });

  it(`answers kubectl ${second!.version} auth whoami from a SelfSubjectReview`, async () => {
    const res = await kubectl(second!.path!, ['auth', 'whoami', '-o', 'json']);
    expect(res.stderr).toBe('');
    const review = JSON.parse(res.stdout) as { apiVersion: string; status: { userInfo: { groups: string[] } } };
    expect(review.apiVersion).toBe('authentication.k8s.io/v1');
    expect(review.status.userInfo.groups).toEqual(expect.arrayContaining(['system:masters', 'system:authenticated']));
  });

  it(`finds nothing to change when kubectl ${second!.version} applies the same manifest`, async () => {
    const res = await kubectl(second!.path!, ['apply', '-f', manifestPath]);
    expect(res.stderr).toBe(warningsFor(entries));
    const lines = res.stdout.trim().split('\n');
    expect(lines).toHaveLength(entries.length);
    for (const line of lines) expect(line).toMatch(/ unchanged$/);
  });
});
