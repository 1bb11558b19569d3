// The acceptance test of the schema module: every real-world CRD in ../shared/upstream/crds is
// accepted as kube-apiserver 1.33 accepts it, and each sample instance validates after the
// pruning and defaulting every custom resource write goes through.

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { compileSchema, schemaCauses, type JSONSchemaProps } from '../../../runtime/validation/openapi-schema/index.js';
import { UPSTREAM_DIR, upstreamAvailable } from '../../support/upstream.js';

const present = upstreamAvailable();
const CRDS = join(UPSTREAM_DIR, 'crds');

interface Version {
  name: string;
  schema: { openAPIV3Schema: JSONSchemaProps };
  subresources?: { status?: object };
}
interface CRD {
  spec: { group: string; versions: Version[] };
}

const documents = (file: string): Record<string, unknown>[] =>
  parseAllDocuments(readFileSync(join(CRDS, file), 'utf8'))
    .map((d) => d.toJSON() as Record<string, unknown> | null)
    .filter((d): d is Record<string, unknown> => d !== null);

const files = present ? readdirSync(CRDS).filter((f) => f.endsWith('.yaml') && !f.includes('.sample.')) : [];

describe.skipIf(!present)('real-world CRDs', () => {
  it('finds all six', () => {
    expect(files).toHaveLength(6);
  });

  describe.each(files)('%s', (file) => {
    const crd = documents(file)[0] as unknown as CRD;
    const samples = documents(file.replace(/\.yaml$/, '.sample.yaml'));

    it.each(crd.spec.versions.map((v, i) => [v.name, i] as const))('version %s: the schema is accepted', (_name, i) => {
      const version = crd.spec.versions[i];
      const path = `spec.versions[${i}].schema.openAPIV3Schema`;
      expect(schemaCauses(version.schema.openAPIV3Schema, path, { statusEnabled: !!version.subresources?.status })).toEqual([]);
    });

    it('its sample validates after pruning and defaulting', () => {
      let checked = 0;
      for (const sample of samples) {
        const version = crd.spec.versions.find((v) => sample.apiVersion === `${crd.spec.group}/${v.name}`);
        expect(version, `a served version for ${String(sample.apiVersion)}`).toBeDefined();
        const compiled = compileSchema(version!.schema.openAPIV3Schema);
        const obj = structuredClone(sample);
        compiled.prune(obj);
        compiled.applyDefaults(obj);
        expect(compiled.validate(obj)).toEqual([]);
        // What was sent keeps its meaning: apiVersion, kind and metadata stay as they were.
        expect([obj.apiVersion, obj.kind, obj.metadata]).toEqual([sample.apiVersion, sample.kind, sample.metadata]);
        checked++;
      }
      expect(checked).toBeGreaterThan(0);
    });
  });

  it('prunes everything under the Driver spec, which declares no properties', () => {
    const crd = documents('crew.example.com_drivers.yaml')[0] as unknown as CRD;
    const [sample] = documents('crew.example.com_drivers.sample.yaml');
    const version = crd.spec.versions.find((v) => sample.apiVersion === `${crd.spec.group}/${v.name}`)!;
    const obj = structuredClone(sample);
    const pruned = compileSchema(version.schema.openAPIV3Schema).prune(obj);
    expect(pruned.length).toBeGreaterThan(0);
    expect(obj.spec).toEqual({});
  });

  it('fills the ServiceMonitor defaults of the sample (endpoints keep what was sent)', () => {
    const crd = documents('monitoring.coreos.com_servicemonitors.yaml')[0] as unknown as CRD;
    const [sample] = documents('monitoring.coreos.com_servicemonitors.sample.yaml');
    const compiled = compileSchema(crd.spec.versions[0].schema.openAPIV3Schema);
    const obj = structuredClone(sample);
    compiled.prune(obj);
    compiled.applyDefaults(obj);
    expect(compiled.validate(obj)).toEqual([]);
    const endpoints = (obj.spec as { endpoints: Record<string, unknown>[] }).endpoints;
    const sent = (sample.spec as { endpoints: Record<string, unknown>[] }).endpoints;
    expect(endpoints[0]).toMatchObject(sent[0]);
  });
});
