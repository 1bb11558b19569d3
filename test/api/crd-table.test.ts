// Server-side Tables of custom resources: the columns kube-apiserver builds from a CRD version's
// additionalPrinterColumns (Name first, Age when none) and the cells its CRD table convertor
// computes (first JSONPath result, typed by the column's type, nil when missing).

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { buildTable } from '../../runtime/api/table.js';
import { customResourcePrinterColumns, type CustomResourceColumnDefinition } from '../../runtime/registry/crd-printer-columns.js';
import { UPSTREAM_DIR, upstreamAvailable } from '../support/upstream.js';

const NOW = new Date('2026-01-10T12:00:00Z');

function crdColumns(file: string): CustomResourceColumnDefinition[] {
  const crd = parse(readFileSync(join(UPSTREAM_DIR, 'crds', file), 'utf8'));
  return crd.spec.versions[0].additionalPrinterColumns;
}

describe('customResourcePrinterColumns', () => {
  it('puts Name first and serves Age over creationTimestamp when the version lists no columns', () => {
    const columns = customResourcePrinterColumns(undefined);
    expect(columns.map((c) => [c.name, c.type, c.format, c.priority])).toEqual([
      ['Name', 'string', 'name', 0],
      ['Age', 'date', '', 0],
    ]);
    expect(columns[0].description).toMatch(/^Name must be unique within a namespace\./);
    expect(columns[1].description).toMatch(/^CreationTimestamp is a timestamp/);
    expect(customResourcePrinterColumns([])).toEqual(columns);
  });

  it('describes a column without a description by its path, as kube does', () => {
    const [, col] = customResourcePrinterColumns([{ name: 'Phase', type: 'string', jsonPath: '.status.phase' }]);
    expect(col.description).toBe('Custom resource definition column (in JSONPath format): .status.phase');
  });

  it('ends the columns at the first path that does not parse, as kube\'s convertor falls back', () => {
    const columns = customResourcePrinterColumns([
      { name: 'A', type: 'string', jsonPath: '.a' },
      { name: 'B', type: 'string', jsonPath: '.b[' },
      { name: 'C', type: 'string', jsonPath: '.c' },
    ]);
    expect(columns.map((c) => c.name)).toEqual(['Name', 'A']);
  });
});

describe('custom resource cells', () => {
  const table = (cols: CustomResourceColumnDefinition[], obj: Record<string, unknown>) =>
    buildTable(customResourcePrinterColumns(cols), obj, { now: NOW, includeObject: 'None' }).rows[0].cells;

  it('renders each type as kube\'s cellForJSONValue does', () => {
    const obj = {
      metadata: { name: 'x', creationTimestamp: '2026-01-10T11:00:00Z' },
      spec: { count: 3.7, ratio: 2, on: true, when: '2026-01-09T12:00:00Z', bad: 'yesterday', text: 'hi', map: { b: 1, a: 'z' }, list: [1, 'a'] },
    };
    expect(
      table(
        [
          { name: 'Int', type: 'integer', jsonPath: '.spec.count' },
          { name: 'Num', type: 'number', jsonPath: '.spec.ratio' },
          { name: 'Bool', type: 'boolean', jsonPath: '.spec.on' },
          { name: 'When', type: 'date', jsonPath: '.spec.when' },
          { name: 'Bad', type: 'date', jsonPath: '.spec.bad' },
          { name: 'IntOfText', type: 'integer', jsonPath: '.spec.text' },
          { name: 'Map', type: 'string', jsonPath: '.spec.map' },
          { name: 'List', type: 'string', jsonPath: '.spec.list' },
          { name: 'NumAsText', type: 'string', jsonPath: '.spec.count' },
          { name: 'Missing', type: 'string', jsonPath: '.spec.nothing.here' },
          { name: 'NotArray', type: 'string', jsonPath: '.spec.text[0]' },
        ],
        obj,
      ),
    ).toEqual(['x', 3, 2, true, '24h', '<invalid>', null, 'map[a:z b:1]', '[1 a]', '3.7', null, null]);
  });

  it('takes the first result only, and prints a null value as Go does', () => {
    const obj = { metadata: { name: 'x' }, spec: { items: [{ n: 'a' }, { n: 'b' }], gone: null, zero: '' } };
    expect(
      table(
        [
          { name: 'First', type: 'string', jsonPath: '.spec.items[*].n' },
          { name: 'Null', type: 'string', jsonPath: '.spec.gone' },
          { name: 'NullInt', type: 'integer', jsonPath: '.spec.gone' },
          { name: 'ZeroDate', type: 'date', jsonPath: '.spec.zero' },
        ],
        obj,
      ),
    ).toEqual(['x', 'a', '<no value>', null, '<unknown>']);
  });

  it.skipIf(!upstreamAvailable())('prints the cert-manager Certificate as kube does, priority-1 columns included for -o wide', () => {
    const columns = customResourcePrinterColumns(crdColumns('cert-manager.io_certificates.yaml'));
    expect(columns.map((c) => [c.name, c.type, c.priority])).toEqual([
      ['Name', 'string', 0],
      ['Ready', 'string', 0],
      ['Secret', 'string', 0],
      ['Issuer', 'string', 1],
      ['Status', 'string', 1],
      ['Expiration', 'string', 1],
      ['Age', 'date', 0],
    ]);
    const sample = parse(readFileSync(join(UPSTREAM_DIR, 'crds', 'cert-manager.io_certificates.sample.yaml'), 'utf8'));
    sample.metadata.creationTimestamp = '2026-01-10T11:58:00Z';
    expect(buildTable(columns, sample, { now: NOW }).rows[0].cells).toEqual(['test1', null, 'test1', 'selfsigned-issuer', null, null, '2m']);
    sample.status = {
      notAfter: '2026-04-10T11:58:00Z',
      conditions: [
        { type: 'Issuing', status: 'False', message: 'no' },
        { type: 'Ready', status: 'True', message: 'Certificate is up to date and has not expired' },
      ],
    };
    expect(buildTable(columns, sample, { now: NOW }).rows[0].cells).toEqual([
      'test1',
      'True',
      'test1',
      'selfsigned-issuer',
      'Certificate is up to date and has not expired',
      '2026-04-10T11:58:00Z',
      '2m',
    ]);
  });

  it.skipIf(!upstreamAvailable())('prints the Argo Rollout\'s integer columns, nil where status has not been written', () => {
    const columns = customResourcePrinterColumns(crdColumns('argoproj.io_rollouts.yaml'));
    expect(columns.map((c) => c.name)).toEqual(['Name', 'Desired', 'Current', 'Up-to-date', 'Available', 'Age']);
    const sample = parse(readFileSync(join(UPSTREAM_DIR, 'crds', 'argoproj.io_rollouts.sample.yaml'), 'utf8'));
    sample.metadata.creationTimestamp = '2026-01-07T12:00:00Z';
    expect(buildTable(columns, sample, { now: NOW }).rows[0].cells).toEqual([sample.metadata.name, sample.spec.replicas, null, null, null, '3d']);
  });
});
