// Server-side Tables for the served kinds (columns as printer-columns.json lists them), the
// Age column's HumanDuration, includeObject and the watch form.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ageOf, humanDuration } from '../../runtime/machinery/human-duration.js';
import { asPartialObjectMetadata, asPartialObjectMetadataList } from '../../runtime/api/partial-object-metadata.js';
import { buildTable, parseIncludeObject, tableWatchRenderer } from '../../runtime/api/table.js';
import { parseJsonPath } from '../../runtime/api/table-cells.js';
import type { PrinterColumn } from '../../runtime/registry/definition.js';
import { UPSTREAM_DIR, upstreamAvailable } from '../support/proto-fields-descriptor.js';

const NAME: PrinterColumn = { name: 'Name', type: 'string', format: 'name', priority: 0, description: 'Object name (metadata.name).', jsonPath: '.metadata.name' };
const AGE: PrinterColumn = {
  name: 'Age',
  type: 'string',
  priority: 0,
  description: 'Time since metadata.creationTimestamp, as a short human duration (e.g. 5m, 3d).',
  age: '.metadata.creationTimestamp',
};

const COLUMNS: Record<string, PrinterColumn[]> = {
  configmaps: [
    NAME,
    {
      name: 'Data',
      type: 'string',
      priority: 0,
      description: 'Count of keys in data plus binaryData.',
      cel: '(has(self.data) ? size(self.data) : 0) + (has(self.binaryData) ? size(self.binaryData) : 0)',
    },
    AGE,
  ],
  secrets: [
    NAME,
    { name: 'Type', type: 'string', priority: 0, description: "The secret's type field.", jsonPath: '.type' },
    { name: 'Data', type: 'string', priority: 0, description: 'Count of keys in data.', cel: 'has(self.data) ? size(self.data) : 0' },
    AGE,
  ],
  namespaces: [NAME, { name: 'Status', type: 'string', priority: 0, description: 'status.phase (Active or Terminating).', jsonPath: '.status.phase' }, AGE],
  _default: [NAME, { name: 'Created At', type: 'date', priority: 0, description: 'metadata.creationTimestamp as an RFC 3339 timestamp.', jsonPath: '.metadata.creationTimestamp' }],
};

const NOW = new Date('2025-06-01T12:00:00Z');
const ago = (ms: number) => new Date(NOW.getTime() - ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

describe('humanDuration', () => {
  const s = 1000;
  const m = 60 * s;
  const h = 60 * m;
  const d = 24 * h;
  const y = 365 * d;
  it.each([
    [-3 * s, '<invalid>'],
    [-2 * s, '<invalid>'],
    [-1999, '0s'],
    [-1 * s, '0s'],
    [0, '0s'],
    [999, '0s'],
    [5 * s, '5s'],
    [119 * s, '119s'],
    [2 * m, '2m'],
    [3 * m + 20 * s, '3m20s'],
    [9 * m + 59 * s, '9m59s'],
    [10 * m, '10m'],
    [10 * m + 30 * s, '10m'],
    [179 * m, '179m'],
    [3 * h, '3h'],
    [5 * h + 30 * m, '5h30m'],
    [7 * h + 59 * m, '7h59m'],
    [8 * h + 30 * m, '8h'],
    [47 * h, '47h'],
    [2 * d, '2d'],
    [3 * d + 4 * h, '3d4h'],
    [7 * d + 23 * h, '7d23h'],
    [8 * d + 5 * h, '8d'],
    [729 * d, '729d'],
    [2 * y, '2y'],
    [2 * y + 10 * d, '2y10d'],
    [7 * y + 364 * d, '7y364d'],
    [8 * y + 100 * d, '8y'],
    [20 * y, '20y'],
  ])('%d ms is %s', (ms, want) => {
    expect(humanDuration(ms)).toBe(want);
  });

  it('reads timestamps, and reports missing or bad ones as the printers do', () => {
    expect(ageOf(ago(5 * 60_000), NOW)).toBe('5m');
    expect(ageOf(undefined, NOW)).toBe('<unknown>');
    expect(ageOf('yesterday', NOW)).toBe('<invalid>');
  });
});

describe('buildTable', () => {
  it.runIf(upstreamAvailable())('declares the columns printer-columns.json lists', () => {
    const upstream = JSON.parse(readFileSync(join(UPSTREAM_DIR, 'printer-columns.json'), 'utf8'));
    for (const [resource, columns] of Object.entries(COLUMNS)) {
      const table = buildTable(columns, { items: [] }, { now: NOW });
      expect(table.columnDefinitions, resource).toEqual(
        upstream[resource].map((c: PrinterColumn) => ({ name: c.name, type: c.type, format: c.format ?? '', description: c.description, priority: c.priority })),
      );
    }
  });

  it('renders a ConfigMap list with metadata rows and list metadata', () => {
    const list = {
      apiVersion: 'v1',
      kind: 'ConfigMapList',
      metadata: { resourceVersion: '812', continue: 'next', remainingItemCount: 4 },
      items: [
        { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', namespace: 'ns', creationTimestamp: ago(3 * 60_000 + 20_000) }, data: { x: '1', y: '2' }, binaryData: { z: 'AA==' } },
        { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'empty', namespace: 'ns', creationTimestamp: ago(2 * 86_400_000) } },
      ],
    };
    const table = buildTable(COLUMNS.configmaps, list, { now: NOW });
    expect(table).toEqual({
      kind: 'Table',
      apiVersion: 'meta.k8s.io/v1',
      metadata: { resourceVersion: '812', continue: 'next', remainingItemCount: 4 },
      columnDefinitions: expect.any(Array),
      rows: [
        {
          cells: ['a', 3, '3m20s'],
          object: { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: list.items[0].metadata },
        },
        {
          cells: ['empty', 0, '2d'],
          object: { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: list.items[1].metadata },
        },
      ],
    });
    expect(JSON.parse(JSON.stringify(table.rows[0].cells))).toEqual(['a', 3, '3m20s']);
  });

  it('renders Secrets and Namespaces, one object at a time too', () => {
    const secret = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's', resourceVersion: '9', creationTimestamp: ago(90 * 60_000) }, type: 'Opaque', data: { k: 'dg==' } };
    expect(buildTable(COLUMNS.secrets, secret, { now: NOW })).toMatchObject({
      metadata: { resourceVersion: '9' },
      rows: [{ cells: ['s', 'Opaque', 1, '90m'] }],
    });
    const ns = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'kube-system', creationTimestamp: ago(400 * 86_400_000) }, status: { phase: 'Active' } };
    const terminating = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'old' }, status: {} };
    expect(buildTable(COLUMNS.namespaces, { items: [ns, terminating] }, { now: NOW }).rows.map((r) => r.cells)).toEqual([
      ['kube-system', 'Active', '400d'],
      ['old', null, '<unknown>'],
    ]);
    expect(buildTable(COLUMNS._default, ns, { now: NOW }).rows[0].cells).toEqual(['kube-system', ns.metadata.creationTimestamp]);
  });

  it('gives an empty cell when a CEL expression fails', () => {
    const column: PrinterColumn = { name: 'Keys', type: 'integer', priority: 0, description: '', cel: 'size(self.data)' };
    const table = buildTable([NAME, column], { items: [{ metadata: { name: 'no-data' } }, { metadata: { name: 'd' }, data: { a: 'b' } }] }, { now: NOW });
    expect(table.rows.map((r) => r.cells)).toEqual([
      ['no-data', null],
      ['d', 1],
    ]);
  });

  it('includes the whole object, its metadata, or nothing', () => {
    const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', uid: 'u' }, data: { k: 'v' } };
    expect(buildTable(COLUMNS.configmaps, cm, { includeObject: 'Object', now: NOW }).rows[0].object).toBe(cm);
    expect(buildTable(COLUMNS.configmaps, cm, { includeObject: 'None', now: NOW }).rows[0].object).toBeNull();
    expect(buildTable(COLUMNS.configmaps, cm, { version: 'v1beta1', now: NOW })).toMatchObject({
      apiVersion: 'meta.k8s.io/v1beta1',
      rows: [{ object: { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1beta1', metadata: cm.metadata } }],
    });
    expect(JSON.stringify(buildTable(COLUMNS.configmaps, { items: [] }, { now: NOW }))).toContain('"rows":[]');
  });

  it('validates includeObject as kube-apiserver does', () => {
    expect(parseIncludeObject(undefined)).toBe('Metadata');
    expect(parseIncludeObject('')).toBe('Metadata');
    expect(parseIncludeObject('Object')).toBe('Object');
    expect(() => parseIncludeObject('All')).toThrow(
      expect.objectContaining({
        code: 400,
        reason: 'BadRequest',
        message: `Unable to convert to Table as requested: includeObject: Invalid value: "All": must be 'Metadata', 'Object', 'None', or empty`,
      }),
    );
  });

  it('renders watch events as one-row Tables, column definitions on the first only', () => {
    const renderer = tableWatchRenderer(COLUMNS.configmaps, { now: NOW });
    const first = renderer.render({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', resourceVersion: '10', creationTimestamp: ago(5000) } });
    const second = renderer.render({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'b', resourceVersion: '11', creationTimestamp: ago(5000) }, data: { x: 'y' } });
    expect(first.columnDefinitions).toHaveLength(3);
    expect(first).toMatchObject({ metadata: { resourceVersion: '10' }, rows: [{ cells: ['a', 0, '5s'] }] });
    expect(second.columnDefinitions).toBeNull();
    expect(second).toMatchObject({ metadata: { resourceVersion: '11' }, rows: [{ cells: ['b', 1, '5s'] }] });
  });
});

describe('parseJsonPath', () => {
  it('understands dotted paths, indexes, quoted keys and braces', () => {
    expect(parseJsonPath('.metadata.name')).toEqual(['metadata', 'name']);
    expect(parseJsonPath('{.spec.ports[0].port}')).toEqual(['spec', 'ports', 0, 'port']);
    expect(parseJsonPath(".metadata.labels['app.kubernetes.io/name']")).toEqual(['metadata', 'labels', 'app.kubernetes.io/name']);
    expect(parseJsonPath('.metadata.annotations.a\\.b')).toEqual(['metadata', 'annotations', 'a.b']);
    expect(() => parseJsonPath('metadata')).toThrow();
  });
});

describe('PartialObjectMetadata', () => {
  it('keeps only metadata, and refuses lists and non-lists as kube-apiserver does', () => {
    const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a' }, data: { k: 'v' } };
    expect(asPartialObjectMetadata(cm)).toEqual({ kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: { name: 'a' } });
    const list = { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleList', metadata: { resourceVersion: '5' }, items: [cm] };
    expect(asPartialObjectMetadataList(list)).toEqual({
      kind: 'PartialObjectMetadataList',
      apiVersion: 'meta.k8s.io/v1',
      metadata: { resourceVersion: '5' },
      items: [{ kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: { name: 'a' } }],
    });
    expect(() => asPartialObjectMetadata(list)).toThrow(
      expect.objectContaining({ code: 406, message: 'you requested PartialObjectMetadata, but the requested object is a list (*v1.ClusterRoleList)' }),
    );
    expect(() => asPartialObjectMetadataList(cm)).toThrow(
      expect.objectContaining({ code: 406, message: 'you requested PartialObjectMetadataList, but the requested object is not a list (*v1.ConfigMap)' }),
    );
  });
});
