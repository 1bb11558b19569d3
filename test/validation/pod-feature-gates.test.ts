// Pod fields behind feature gates (kube-apiserver 1.33's DropDisabledPodFields): dropped on create
// and update while their gate is off, kept while it is on, and kept on update when the stored pod
// already uses the feature, with kube's per-feature notion of "in use". Also what a write through
// pods/status keeps from the stored pod (the status strategy's PrepareForUpdate).

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { resources } from '../../generated/registry.js';
import { strategiesFor } from '../../runtime/registry/strategies/index.js';
import { POD_FEATURE_RULES } from '../../runtime/registry/strategies/pod/drop-disabled.js';
import { FeatureGates, KNOWN_FEATURE_GATES } from '../../runtime/server/feature-gates.js';

type Obj = Record<string, unknown>;

const def = resources.find((r) => r.kind === 'Pod');
if (!def) throw new Error('Pod is not served');

/** kube 1.33's defaults, with some gates switched. */
const defaults = new FeatureGates();
const gates = (over: Record<string, boolean> = {}) => (gate: string) => over[gate] ?? defaults.spec(gate)?.default ?? false;
const strategies = (over: Record<string, boolean> = {}) => strategiesFor(def, gates(over));

const pod = (spec: Obj): Obj => ({ metadata: { name: 'web', namespace: 'default', resourceVersion: '1' }, spec: { containers: [{ name: 'app', image: 'nginx' }], ...spec } });
const created = (obj: Obj, over: Record<string, boolean> = {}): Obj => {
  const copy = structuredClone(obj);
  strategies(over).main.prepareForCreate(copy);
  return copy;
};
const updated = (obj: Obj, old: Obj, over: Record<string, boolean> = {}, sub?: string): Obj => {
  const copy = structuredClone(obj);
  const s = strategies(over);
  (sub ? s.subresources[sub] : s.main).prepareForUpdate(copy, structuredClone(old));
  return copy;
};
const specOf = (o: Obj): Obj => o.spec as Obj;
const first = (o: Obj): Obj => (specOf(o).containers as Obj[])[0];

const ctb = { projected: { sources: [{ clusterTrustBundle: { signerName: 'example.com/s', path: 'b.pem' } }, { configMap: { name: 'c' } }] } };
const claimSpec = { resourceClaims: [{ name: 'gpu', resourceClaimName: 'gpu-claim' }], containers: [{ name: 'app', image: 'nginx', resources: { claims: [{ name: 'gpu' }] } }] };

// [what, gate, spec of the pod, what to read from the pod after the write]
const cases: [string, string, Obj, (o: Obj) => unknown][] = [
  ['projected clusterTrustBundle', 'ClusterTrustBundleProjection', { volumes: [{ name: 'v', ...ctb }] }, (o) => ((specOf(o).volumes as Obj[])[0].projected as Obj).sources],
  ['spec.resourceClaims and container claims', 'DynamicResourceAllocation', claimSpec, (o) => [specOf(o).resourceClaims, (first(o).resources as Obj).claims]],
  ['spec.resources', 'PodLevelResources', { resources: { limits: { cpu: '1' } } }, (o) => specOf(o).resources],
  ['lifecycle.stopSignal', 'ContainerStopSignals', { containers: [{ name: 'app', image: 'nginx', lifecycle: { stopSignal: 'SIGUSR1' } }] }, (o) => first(o).lifecycle],
  ['image volumes and their mounts', 'ImageVolume', { volumes: [{ name: 'img', image: { reference: 'busybox' } }, { name: 'e', emptyDir: {} }], containers: [{ name: 'app', image: 'nginx', volumeMounts: [{ name: 'img', mountPath: '/img' }, { name: 'e', mountPath: '/e' }] }] }, (o) => [(specOf(o).volumes as Obj[]).map((v) => v.name), (first(o).volumeMounts as Obj[]).map((m) => m.name)]],
  ['spec.hostUsers', 'UserNamespacesSupport', { hostUsers: false }, (o) => specOf(o).hostUsers],
  ['securityContext.seLinuxChangePolicy', 'SELinuxChangePolicy', { securityContext: { seLinuxChangePolicy: 'Recursive' } }, (o) => (specOf(o).securityContext as Obj).seLinuxChangePolicy],
  ['resizePolicy', 'InPlacePodVerticalScaling', { containers: [{ name: 'app', image: 'nginx', resizePolicy: [{ resourceName: 'cpu', restartPolicy: 'NotRequired' }] }] }, (o) => first(o).resizePolicy],
  ['preStop sleep', 'PodLifecycleSleepAction', { containers: [{ name: 'app', image: 'nginx', lifecycle: { preStop: { sleep: { seconds: 5 } } } }] }, (o) => first(o).lifecycle],
];

describe('Pod fields behind a feature gate', () => {
  it.each(cases)('%s (%s): dropped on create while the gate is off, kept while it is on', (_what, gate, spec, read) => {
    const off = created(pod(spec), { [gate]: false });
    const on = created(pod(spec), { [gate]: true });
    expect(read(on)).toBeDefined();
    expect(read(off)).not.toEqual(read(on));
  });

  it.each(cases)('%s (%s): dropped on update unless the stored pod uses it', (_what, gate, spec, read) => {
    const plain = created(pod({}), { [gate]: true });
    const using = created(pod(spec), { [gate]: true });
    const next = { ...structuredClone(using), metadata: plain.metadata };
    expect(read(updated(next, plain, { [gate]: false }))).not.toEqual(read(using));
    expect(read(updated(next, using, { [gate]: false }))).toEqual(read(using));
    expect(read(updated(next, plain, { [gate]: true }))).toEqual(read(using));
  });

  it('drops exactly what kube drops with the 1.33 defaults', () => {
    const out = created(pod({ ...claimSpec, resources: { limits: { cpu: '1' } }, volumes: [{ name: 'v', ...ctb }, { name: 'img', image: { reference: 'b' } }], hostUsers: false }));
    expect((specOf(out).volumes as Obj[]).map((v) => v.name)).toEqual(['v']);
    // kube clears the member, not the projected source.
    expect(((specOf(out).volumes as Obj[])[0].projected as Obj).sources).toEqual([{}, { configMap: { name: 'c' } }]);
    expect(specOf(out).resourceClaims).toBeUndefined();
    expect(first(out).resources).toEqual({});
    expect(specOf(out).resources).toBeUndefined();
    expect(specOf(out).hostUsers).toBe(false);
  });

  it('keeps container claims when the stored pod only has spec.resourceClaims (kube looks at that list alone)', () => {
    const old = created(pod({ resourceClaims: [{ name: 'gpu', resourceClaimName: 'gpu-claim' }] }), { DynamicResourceAllocation: true });
    const out = updated({ ...pod(claimSpec), metadata: old.metadata }, old, { DynamicResourceAllocation: false });
    expect((first(out).resources as Obj).claims).toEqual([{ name: 'gpu' }]);
  });

  it('resets procMount to Default rather than removing it while ProcMountType is off', () => {
    const out = created(pod({ containers: [{ name: 'app', image: 'nginx', securityContext: { procMount: 'Unmasked' } }] }), { ProcMountType: false });
    expect((first(out).securityContext as Obj).procMount).toBe('Default');
  });

  it('drops status fields on a status write unless the spec uses the feature', () => {
    const old = created(pod({}));
    const next = { ...structuredClone(old), status: { phase: 'Running', containerStatuses: [{ name: 'app', image: 'nginx', imageID: '', ready: true, restartCount: 0, user: { linux: { uid: 0, gid: 0 } }, allocatedResourcesStatus: [{ name: 'x' }] }] } };
    const status = updated(next, old, { SupplementalGroupsPolicy: false }, 'status').status as Obj;
    expect((status.containerStatuses as Obj[])[0]).not.toHaveProperty('user');
    expect((status.containerStatuses as Obj[])[0]).not.toHaveProperty('allocatedResourcesStatus');
  });

  it('marks in the spec file every field a rule clears, with the rule gate, and nothing else', () => {
    const spec = parse(readFileSync(new URL('../../api-specs/core/pod.yaml', import.meta.url), 'utf8')) as { types: Record<string, { fields?: Record<string, { featureGate?: string }> }> };
    const marked = Object.entries(spec.types).flatMap(([type, t]) =>
      Object.entries(t.fields ?? {}).filter(([, f]) => f.featureGate).map(([field, f]) => `${type}.${field}=${f.featureGate}`),
    );
    const ruled = POD_FEATURE_RULES.flatMap((r) => r.fields.map((f) => `${f}=${r.gate}`));
    expect(marked.sort()).toEqual(ruled.sort());
  });

  it('knows every gate a rule names', () => {
    for (const r of POD_FEATURE_RULES) expect(KNOWN_FEATURE_GATES[r.gate], r.gate).toBeDefined();
  });
});

describe('Pod status writes keep what kube keeps', () => {
  const owner = { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rs', uid: '1', controller: true };
  const cases: [string, (o: Obj) => Obj, (o: Obj) => unknown, unknown][] = [
    ['ownerReferences are kept from the stored pod', (o) => ({ ...o, metadata: { ...(o.metadata as Obj), ownerReferences: [owner] } }), (o) => (o.metadata as Obj).ownerReferences, undefined],
    ['labels may change', (o) => ({ ...o, metadata: { ...(o.metadata as Obj), labels: { a: 'b' } } }), (o) => (o.metadata as Obj).labels, { a: 'b' }],
    ['an emptied qosClass is backfilled', (o) => ({ ...o, status: { phase: 'Running' } }), (o) => (o.status as Obj).qosClass, 'BestEffort'],
    ['a qosClass sent is written (validation judges it)', (o) => ({ ...o, status: { phase: 'Running', qosClass: 'Burstable' } }), (o) => (o.status as Obj).qosClass, 'Burstable'],
  ];
  it.each(cases)('%s', (_what, change, read, want) => {
    const old = created(pod({}));
    expect(read(updated(change(structuredClone(old)), old, {}, 'status'))).toEqual(want);
  });

  it('keeps observedGeneration of the status and of conditions when a write leaves it unset', () => {
    const old = { ...created(pod({})), status: { phase: 'Running', qosClass: 'BestEffort', observedGeneration: 3, conditions: [{ type: 'Ready', status: 'True', observedGeneration: 2 }] } };
    const next = { ...structuredClone(old), status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'False' }] } };
    const status = updated(next, old, { PodObservedGenerationTracking: true }, 'status').status as Obj;
    expect(status.observedGeneration).toBe(3);
    expect((status.conditions as Obj[])[0].observedGeneration).toBe(2);
  });
});
