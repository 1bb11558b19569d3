// Declarative validation (DeclarativeValidation, DeclarativeValidationTakeover): Secret's `type`
// immutability and Namespace's status phase rules are declared in the spec (`declarative: true`)
// and still checked by hand in their strategies. Both run and are compared while the gate is on;
// takeover lets the declared rules decide; without DeclarativeValidation takeover does nothing.

import { describe, expect, it } from 'vitest';
import { resources } from '../../generated/registry.js';
import { declarativeMismatches, coveredByDeclarative } from '../../runtime/registry/declarative.js';
import { strategiesFor } from '../../runtime/registry/strategies/index.js';
import type { StatusCause } from '../../runtime/errors/status-error.js';
import { useMemoryServer } from '../support/memory-server.js';

const definition = (kind: string) => {
  const def = resources.find((r) => r.kind === kind && r.group === '');
  if (!def) throw new Error(`${kind} is not served`);
  return def;
};

const gates = (on: Record<string, boolean>) => (gate: string) => on[gate] ?? false;
const DV_ON = { DeclarativeValidation: true };
const TAKEOVER = { DeclarativeValidation: true, DeclarativeValidationTakeover: true };
const TAKEOVER_ONLY = { DeclarativeValidationTakeover: true };

const invalidType: StatusCause = { reason: 'FieldValueInvalid', field: 'type', message: 'Invalid value: "b": field is immutable' };

describe('comparing hand-written and declarative causes (kube\'s gatherDeclarativeValidationMismatches)', () => {
  const hand = () => coveredByDeclarative({ ...invalidType });
  it.each([
    ['both empty', [], [], []],
    ['same type and field, other message', [hand()], [{ ...invalidType, message: 'Invalid value: "b": other words' }], []],
    ['a hand-written cause not covered is not compared', [{ ...invalidType }], [], []],
    ['covered but missing declaratively', [hand()], [], ['unmatched error(s) found {Type="Invalid value", Field="type"}']],
    ['declared but not found by hand', [], [{ ...invalidType, field: 'data' }], ['extra error(s) found {Type="Invalid value", Field="data"}']],
    ['another type at the same field', [hand()], [{ ...invalidType, reason: 'FieldValueForbidden' as const }], ['unmatched error(s) found {Type="Invalid value"', 'extra error(s) found {Type="Forbidden"']],
  ])('%s', (_name, imperative: StatusCause[], declarative: StatusCause[], expected: string[]) => {
    const details = declarativeMismatches(imperative, declarative, false);
    expect(details).toHaveLength(expected.length);
    expected.forEach((text, i) => expect(details[i]).toContain(text));
    for (const d of details) {
      expect(d).toMatch(/^Unexpected difference between hand written validation and declarative validation error results, /);
      expect(d).toMatch(/This difference should not affect system operation since hand written validation is authoritative\.$/);
    }
  });

  it('names the takeover gate when the declared rules decide', () => {
    const [detail] = declarativeMismatches([hand()], [], true);
    expect(detail).toMatch(/Consider disabling the DeclarativeValidationTakeover feature gate to keep data persisted in etcd consistent with prior versions of Kubernetes\.$/);
  });
});

describe('a Secret\'s type change under each gate setting', () => {
  const secret = (type: string) => ({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 's', namespace: 'default', resourceVersion: '1' }, type, data: {} });

  it.each([
    ['gates off', {}],
    ['DeclarativeValidation', DV_ON],
    ['takeover', TAKEOVER],
    ['takeover without DeclarativeValidation', TAKEOVER_ONLY],
  ])('%s: one Invalid cause at type, and no mismatch', (_name, on) => {
    const reports: string[] = [];
    const { main } = strategiesFor(definition('Secret'), gates(on), (d) => reports.push(d));
    const causes = main.validateUpdate(secret('b'), secret('a'));
    expect(causes.filter((c) => c.field === 'type')).toEqual([invalidType]);
    expect(main.validateUpdate(secret('a'), secret('a'))).toEqual([]);
    expect(reports).toEqual([]);
  });

  // The rules differ on one input no request can send (type is defaulted before validation): ''
  // against an absent type, which the hand-written check calls a change and the declared rule not.
  const odd = () => ({ ...secret(''), type: '' });
  const absent = () => {
    const s: Record<string, unknown> = secret('');
    delete s.type;
    return s;
  };

  it('a disagreement is reported while the hand-written answer stands', () => {
    const reports: string[] = [];
    const { main } = strategiesFor(definition('Secret'), gates(DV_ON), (d) => reports.push(d));
    expect(main.validateUpdate(odd(), absent()).map((c) => c.field)).toEqual(['type']);
    expect(reports).toHaveLength(1);
    expect(reports[0]).toContain('unmatched error(s) found {Type="Invalid value", Field="type"}');
  });

  it('under takeover the declared rule decides, and the disagreement is still reported', () => {
    const reports: string[] = [];
    const { main } = strategiesFor(definition('Secret'), gates(TAKEOVER), (d) => reports.push(d));
    expect(main.validateUpdate(odd(), absent())).toEqual([]);
    expect(reports).toHaveLength(1);
    expect(reports[0]).toContain('Consider disabling the DeclarativeValidationTakeover feature gate');
  });

  it.each([['gates off', {}], ['takeover without DeclarativeValidation', TAKEOVER_ONLY]])('%s: nothing declarative runs', (_name, on) => {
    const reports: string[] = [];
    const { main } = strategiesFor(definition('Secret'), gates(on), (d) => reports.push(d));
    expect(main.validateUpdate(odd(), absent()).map((c) => c.field)).toEqual(['type']);
    expect(reports).toEqual([]);
  });
});

describe('a Namespace\'s status phase', () => {
  const ns = (phase: string, deleting = false) => ({
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: 'n', resourceVersion: '1', ...(deleting ? { deletionTimestamp: '2026-01-01T00:00:00Z' } : {}) },
    spec: { finalizers: ['kubernetes'] },
    status: { phase },
  });

  it.each([
    [ns('Terminating'), "Invalid value: \"Terminating\": may only be 'Active' if `deletionTimestamp` is empty"],
    [ns('Active', true), "Invalid value: \"Active\": may only be 'Terminating' if `deletionTimestamp` is not empty"],
    [ns(''), "Invalid value: \"\": may only be 'Active' if `deletionTimestamp` is empty"],
  ])('%j: the same cause by hand and declaratively', (obj, message) => {
    for (const on of [{}, DV_ON, TAKEOVER]) {
      const reports: string[] = [];
      const { subresources } = strategiesFor(definition('Namespace'), gates(on), (d) => reports.push(d));
      // The stored namespace differs in its phase only: metadata.deletionTimestamp cannot change.
      const causes = subresources.status.validateUpdate(obj, { ...ns('Active'), metadata: obj.metadata });
      expect(causes, JSON.stringify(on)).toEqual([{ reason: 'FieldValueInvalid', field: 'status.Phase', message }]);
      expect(reports).toEqual([]);
    }
  });

  it('agreeing phases pass on every path, with nothing to report', () => {
    const reports: string[] = [];
    const strategies = strategiesFor(definition('Namespace'), gates(DV_ON), (d) => reports.push(d));
    expect(strategies.subresources.status.validateUpdate(ns('Terminating', true), ns('Active', true))).toEqual([]);
    expect(strategies.main.validate(ns('Active'))).toEqual([]);
    expect(reports).toEqual([]);
  });
});

describe.each([
  ['default gates', {}],
  ['takeover', { featureGates: 'DeclarativeValidationTakeover=true' }],
  ['DeclarativeValidation off', { featureGates: 'DeclarativeValidation=false,DeclarativeValidationTakeover=true' }],
])('over HTTPS with %s', (_name, options) => {
  let mismatches = 0;
  const errors: string[] = [];
  const logger = { debug: () => {}, info: () => {}, error: (m: string) => errors.push(m) };
  const server = useMemoryServer({ ...options, logger, onDeclarativeValidationMismatch: () => mismatches++ });

  it('refuses a Secret type change with kube\'s 422 and keeps the stored Secret', async () => {
    const created = await server.send('POST', '/api/v1/namespaces/default/secrets', { metadata: { name: 'dv' }, type: 'example.com/a', stringData: { k: 'v' } });
    expect(created.status).toBe(201);
    const changed = { ...created.body, type: 'example.com/b' };
    const res = await server.send<{ reason: string; details: { causes: StatusCause[] } }>('PUT', '/api/v1/namespaces/default/secrets/dv', changed);
    expect(res.status).toBe(422);
    expect(res.body.reason).toBe('Invalid');
    expect(res.body.details.causes).toEqual([{ reason: 'FieldValueInvalid', field: 'type', message: 'Invalid value: "example.com/b": field is immutable' }]);
    const stored = await server.send<{ type: string }>('GET', '/api/v1/namespaces/default/secrets/dv');
    expect(stored.body.type).toBe('example.com/a');
  });

  it('refuses a Terminating phase without deletionTimestamp through namespaces/status', async () => {
    expect((await server.send('POST', '/api/v1/namespaces', { metadata: { name: 'dv-ns' } })).status).toBe(201);
    const got = await server.send<Record<string, unknown>>('GET', '/api/v1/namespaces/dv-ns');
    const res = await server.send<{ details: { causes: StatusCause[] } }>('PUT', '/api/v1/namespaces/dv-ns/status', { ...got.body, status: { phase: 'Terminating' } });
    expect(res.status).toBe(422);
    expect(res.body.details.causes).toEqual([{ reason: 'FieldValueInvalid', field: 'status.Phase', message: "Invalid value: \"Terminating\": may only be 'Active' if `deletionTimestamp` is empty" }]);
    const after = await server.send<{ status: { phase: string } }>('GET', '/api/v1/namespaces/dv-ns');
    expect(after.body.status.phase).toBe('Active');
  });

  it('saw no disagreement between the declared and hand-written rules', () => {
    expect(mismatches).toBe(0);
    expect(errors.filter((e) => e.includes('declarative validation'))).toEqual([]);
  });
});
