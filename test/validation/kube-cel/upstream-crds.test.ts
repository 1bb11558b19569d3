// The six real-world CRDs of /work/shared/upstream/crds: every x-kubernetes-validations rule
// compiles and fits kube's cost limits (HTTPRoute's 156 rules included), each sample passes its
// rules once defaulted as kube defaults it, and the GatewayClass transition rule refuses a changed
// controllerName with kube's message and path.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml, parseAllDocuments } from 'yaml';
import { compileSchema } from '../../../runtime/validation/openapi-schema/index.js';
import { compileRules } from '../../../runtime/validation/kube-cel/index.js';
import { UPSTREAM_DIR, upstreamAvailable } from '../../support/upstream.js';

const CRDS = [
  'gateway.networking.k8s.io_gatewayclasses',
  'gateway.networking.k8s.io_httproutes',
  'argoproj.io_rollouts',
  'cert-manager.io_certificates',
  'monitoring.coreos.com_servicemonitors',
  'crew.example.com_drivers',
];

interface Version {
  name: string;
  schema: { openAPIV3Schema: Record<string, unknown> };
}

const dir = (): string => join(UPSTREAM_DIR, 'crds');

function load(name: string): { versions: Version[]; kind: string; samples: Record<string, unknown>[] } {
  const crd = parseYaml(readFileSync(join(dir(), `${name}.yaml`), 'utf8'));
  const samples = parseAllDocuments(readFileSync(join(dir(), `${name}.sample.yaml`), 'utf8'))
    .map((d) => d.toJSON() as Record<string, unknown>)
    .filter((d) => d && d.kind === crd.spec.names.kind);
  return { versions: crd.spec.versions, kind: crd.spec.names.kind, samples };
}

function countRules(schema: unknown): number {
  if (!schema || typeof schema !== 'object') return 0;
  let n = 0;
  for (const [k, v] of Object.entries(schema)) {
    if (k === 'x-kubernetes-validations' && Array.isArray(v)) n += v.length;
    else if (k !== 'default' && k !== 'enum' && k !== 'example') n += countRules(v);
  }
  return n;
}

describe.runIf(upstreamAvailable())('real-world CRDs', () => {
  for (const name of CRDS) {
    it(`${name}: every rule compiles within the cost limits and each sample passes`, () => {
      const { versions, samples } = load(name);
      expect(samples.length).toBeGreaterThan(0);
      versions.forEach((v, i) => {
        const schema = v.schema.openAPIV3Schema;
        const { causes, rules } = compileRules(schema, `spec.versions[${i}].schema.openAPIV3Schema`);
        expect(causes).toEqual([]);
        expect(rules.empty).toBe(countRules(schema) === 0);
        const structural = compileSchema(schema);
        for (const sample of samples) {
          const obj = structuredClone(sample);
          structural.prune(obj);
          structural.applyDefaults(obj);
          expect(rules.validate(obj)).toEqual([]);
          expect(rules.validate(obj, structuredClone(obj))).toEqual([]);
        }
      });
    });
  }

  it('HTTPRoute holds 156 rules (78 per version)', () => {
    const { versions } = load('gateway.networking.k8s.io_httproutes');
    expect(versions.map((v) => countRules(v.schema.openAPIV3Schema))).toEqual([78, 78]);
  });

  it('GatewayClass: a changed controllerName is refused as immutable', () => {
    const { versions, samples } = load('gateway.networking.k8s.io_gatewayclasses');
    const { rules } = compileRules(versions[0].schema.openAPIV3Schema, 'spec.versions[0].schema.openAPIV3Schema');
    const old = structuredClone(samples[0]) as { spec: { controllerName: string } };
    const changed = structuredClone(old);
    changed.spec.controllerName = 'example.net/other-controller';
    expect(rules.validate(changed, old)).toEqual([
      { reason: 'FieldValueInvalid', message: 'Invalid value: "string": Value is immutable', field: 'spec.controllerName' },
    ]);
    // Creating it with any controllerName is fine: there is no old value to compare.
    expect(rules.validate(changed)).toEqual([]);
  });

  it('HTTPRoute: rules refuse what Gateway API refuses', () => {
    const { versions, samples } = load('gateway.networking.k8s.io_httproutes');
    const schema = versions[0].schema.openAPIV3Schema;
    const { rules } = compileRules(schema, 'spec.versions[0].schema.openAPIV3Schema');
    const structural = compileSchema(schema);
    const route = structuredClone(samples[0]) as { spec: { rules: { matches?: unknown[] }[] } };
    route.spec.rules[0].matches = [{ path: { type: 'PathPrefix', value: '/foo//bar' } }];
    structural.applyDefaults(route as Record<string, unknown>);
    const causes = rules.validate(route as Record<string, unknown>);
    expect(causes).toContainEqual({
      reason: 'FieldValueInvalid',
      message: 'Invalid value: "object": must not contain \'//\' when type one of [\'Exact\', \'PathPrefix\']',
      field: 'spec.rules[0].matches[0].path',
    });
  });

  it('Rollout: the selector transition rule refuses a changed selector', () => {
    const { versions, samples } = load('argoproj.io_rollouts');
    const { rules } = compileRules(versions[0].schema.openAPIV3Schema, 'spec.versions[0].schema.openAPIV3Schema');
    const old = structuredClone(samples[0]) as { spec: { selector: { matchLabels: Record<string, string> } } };
    const changed = structuredClone(old);
    changed.spec.selector.matchLabels = { app: 'other' };
    const causes = rules.validate(changed as Record<string, unknown>, old as Record<string, unknown>);
    expect(causes).toHaveLength(1);
    expect(causes[0].field).toBe('spec.selector');
  });
});
