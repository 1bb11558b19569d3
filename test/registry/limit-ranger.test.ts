// The LimitRanger admission plugin against kube-apiserver's plugin/pkg/admission/limitranger:
// the defaults it fills and the annotation it writes, every violation message, the 403 it
// answers, and which writes it looks at.

import { describe, expect, it } from 'vitest';
import { resources } from '../../generated/registry.js';
import { isStatusError } from '../../runtime/errors/status-error.js';
import type { AdmissionAttributes } from '../../runtime/registry/admission/admission.js';
import { limitRanger } from '../../runtime/registry/admission/limit-ranger.js';
import { goFixed6 } from '../../runtime/registry/admission/limit-ranger-rules.js';
import type { KubeObject } from '../../runtime/machinery/object.js';

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- JSON objects of several shapes

const podDef = resources.find((r) => r.group === '' && r.kind === 'Pod')!;
const claimDef = resources.find((r) => r.group === '' && r.kind === 'PersistentVolumeClaim')!;
const configMapDef = resources.find((r) => r.group === '' && r.kind === 'ConfigMap')!;

const limitRange = (name: string, ...limits: Obj[]): KubeObject => ({ apiVersion: 'v1', kind: 'LimitRange', metadata: { name, namespace: 'ns' }, spec: { limits } });

const container = (name: string, resources?: Obj, extra: Obj = {}): Obj => ({ name, image: 'busybox', ...(resources ? { resources } : {}), ...extra });
const pod = (spec: Obj, meta: Obj = { name: 'p2' }): KubeObject => ({ apiVersion: 'v1', kind: 'Pod', metadata: { namespace: 'ns', ...meta }, spec });
const claim = (resources: Obj): KubeObject => ({
  apiVersion: 'v1',
  kind: 'PersistentVolumeClaim',
  metadata: { name: 'c1', namespace: 'ns' },
  spec: { accessModes: ['ReadWriteOnce'], resources },
});

function attributes(object: KubeObject, def = podDef, extra: Partial<AdmissionAttributes> = {}): AdmissionAttributes {
  return { operation: 'CREATE', definition: def, subresource: '', namespace: 'ns', object, dryRun: false, ...extra };
}

function plugin(items: KubeObject[], gates: string[] = []) {
  return limitRanger({ list: async () => items, featureEnabled: (gate) => gates.includes(gate) });
}

/** The 403's message, or undefined when validation passes. */
async function refusal(items: KubeObject[], a: AdmissionAttributes, gates: string[] = []): Promise<string | undefined> {
  try {
    await plugin(items, gates).validate!(a);
    return undefined;
  } catch (e) {
    if (!isStatusError(e)) throw e;
    expect(e.code).toBe(403);
    expect(e.reason).toBe('Forbidden');
    return e.message;
  }
}

const CONTAINER_DEFAULTS = limitRange('defaults', {
  type: 'Container',
  default: { cpu: '1', memory: '512Mi' },
  defaultRequest: { cpu: '500m', memory: '256Mi' },
});

describe('LimitRanger defaults (mutating)', () => {
  it.each<[string, KubeObject[], Obj, Obj, string | undefined]>([
    [
      'fills a container without resources and names both in the annotation',
      [CONTAINER_DEFAULTS],
      { containers: [container('app')] },
      { containers: [container('app', { limits: { cpu: '1', memory: '512Mi' }, requests: { cpu: '500m', memory: '256Mi' } })] },
      'LimitRanger plugin set: cpu, memory request for container app; cpu, memory limit for container app',
    ],
    [
      'keeps what the container sets and names only what it filled',
      [CONTAINER_DEFAULTS],
      { containers: [container('app', { requests: { cpu: '100m' }, limits: { memory: '1Gi' } })] },
      { containers: [container('app', { requests: { cpu: '100m', memory: '256Mi' }, limits: { memory: '1Gi', cpu: '1' } })] },
      'LimitRanger plugin set: memory request for container app; cpu limit for container app',
    ],
    [
      'fills init containers after containers, called init containers',
      [CONTAINER_DEFAULTS],
      {
        containers: [container('app', { requests: { cpu: '1', memory: '512Mi' }, limits: { cpu: '1', memory: '512Mi' } })],
        initContainers: [container('setup')],
      },
      {
        containers: [container('app', { requests: { cpu: '1', memory: '512Mi' }, limits: { cpu: '1', memory: '512Mi' } })],
        initContainers: [container('setup', { limits: { cpu: '1', memory: '512Mi' }, requests: { cpu: '500m', memory: '256Mi' } })],
      },
      'LimitRanger plugin set: cpu, memory request for init container setup; cpu, memory limit for init container setup',
    ],
    [
      'leaves ephemeral containers alone',
      [CONTAINER_DEFAULTS],
      { containers: [container('app', { requests: { cpu: '1', memory: '1' }, limits: { cpu: '1', memory: '1' } })], ephemeralContainers: [container('debug')] },
      { containers: [container('app', { requests: { cpu: '1', memory: '1' }, limits: { cpu: '1', memory: '1' } })], ephemeralContainers: [container('debug')] },
      undefined,
    ],
    [
      'does nothing with only Pod and claim items',
      [limitRange('bounds', { type: 'Pod', max: { cpu: '4' } }, { type: 'PersistentVolumeClaim', max: { storage: '1Gi' } })],
      { containers: [container('app')] },
      { containers: [container('app')] },
      undefined,
    ],
    ['does nothing without LimitRanges', [], { containers: [container('app')] }, { containers: [container('app')] }, undefined],
    [
      'applies LimitRanges in turn; the annotation is the last one that set something',
      [limitRange('a', { type: 'Container', default: { cpu: '2' }, defaultRequest: { cpu: '1' } }), limitRange('b', { type: 'Container', default: { cpu: '3', memory: '1Gi' }, defaultRequest: { cpu: '3', memory: '1Gi' } })],
      { containers: [container('app')] },
      { containers: [container('app', { limits: { cpu: '2', memory: '1Gi' }, requests: { cpu: '1', memory: '1Gi' } })] },
      'LimitRanger plugin set: memory request for container app; memory limit for container app',
    ],
  ])('%s', async (_name, items, spec, want, annotation) => {
    const obj = pod(spec, { name: 'p1', annotations: { keep: 'me' } });
    await plugin(items).admit!(attributes(obj));
    expect(obj.spec).toEqual(want);
    const expected: Obj = { keep: 'me' };
    if (annotation) expected['kubernetes.io/limit-ranger'] = annotation;
    expect((obj.metadata as Obj).annotations).toEqual(expected);
  });
});

const both = (cpu: string, memory = '64Mi'): Obj => ({ requests: { cpu, memory }, limits: { cpu, memory } });

describe('LimitRanger bounds (validating)', () => {
  it.each<[string, KubeObject[], Obj]>([
    ['a container inside every bound', [limitRange('lr', { type: 'Container', min: { cpu: '100m' }, max: { cpu: '1' }, maxLimitRequestRatio: { cpu: '2' } })], { containers: [container('app', { requests: { cpu: '500m' }, limits: { cpu: '1' } })] }],
    ['equal bounds written differently', [limitRange('lr', { type: 'Container', min: { memory: '1Gi' }, max: { memory: '1Gi' } })], { containers: [container('app', { requests: { memory: '1024Mi' }, limits: { memory: '1024Mi' } })] }],
    // Values are compared in whole milli-units rounded up, as kube's int64 arithmetic does.
    ['a request a fraction of a milli-unit below min', [limitRange('lr', { type: 'Container', min: { cpu: '1m' } })], { containers: [container('app', { requests: { cpu: '0.5m' } })] }],
    ['a pod whose containers sum to its max', [limitRange('lr', { type: 'Pod', max: { cpu: '1' } })], { containers: [container('a', both('500m')), container('b', both('500m'))] }],
    ['no LimitRanges', [], { containers: [container('app')] }],
    ['a LimitRange of another type only', [limitRange('lr', { type: 'PersistentVolumeClaim', max: { storage: '1Gi' } })], { containers: [container('app')] }],
  ])('accepts %s', async (_name, items, spec) => {
    expect(await refusal(items, attributes(pod(spec)))).toBeUndefined();
  });

  it.each<[string, Obj, Obj, string]>([
    ['limit above max', { max: { cpu: '1' } }, { limits: { cpu: '4' }, requests: { cpu: '4' } }, 'maximum cpu usage per Container is 1, but limit is 4'],
    ['no limit under a max', { max: { cpu: '1' } }, { requests: { cpu: '500m' } }, 'maximum cpu usage per Container is 1.  No limit is specified'],
    ['request above max', { max: { cpu: '1' } }, { limits: { cpu: '1' }, requests: { cpu: '1500m' } }, 'maximum cpu usage per Container is 1, but request is 1500m'],
    ['request below min', { min: { memory: '64Mi' } }, { requests: { memory: '32Mi' } }, 'minimum memory usage per Container is 64Mi, but request is 32Mi'],
    ['no request under a min', { min: { memory: '64Mi' } }, { limits: {} }, 'minimum memory usage per Container is 64Mi.  No request is specified'],
    ['limit below min', { min: { memory: '64Mi' } }, { requests: { memory: '64Mi' }, limits: { memory: '32Mi' } }, 'minimum memory usage per Container is 64Mi, but limit is 32Mi'],
    ['ratio above the maximum', { maxLimitRequestRatio: { cpu: '2' } }, { requests: { cpu: '100m' }, limits: { cpu: '4' } }, 'cpu max limit to request ratio per Container is 2, but provided ratio is 40.000000'],
    ['fractional ratio above a fractional maximum', { maxLimitRequestRatio: { cpu: '1500m' } }, { requests: { cpu: '3' }, limits: { cpu: '5' } }, 'cpu max limit to request ratio per Container is 1500m, but provided ratio is 1.666667'],
    ['ratio without a request', { maxLimitRequestRatio: { cpu: '2' } }, { limits: { cpu: '1' } }, 'cpu max limit to request ratio per Container is 2, but no request is specified or request is 0'],
    ['ratio with a zero request', { maxLimitRequestRatio: { cpu: '2' } }, { requests: { cpu: '0' }, limits: { cpu: '1' } }, 'cpu max limit to request ratio per Container is 2, but no request is specified or request is 0'],
    ['ratio without a limit', { maxLimitRequestRatio: { cpu: '2' } }, { requests: { cpu: '1' } }, 'cpu max limit to request ratio per Container is 2, but no limit is specified or limit is 0'],
  ])('refuses a container with %s', async (_name, item, resources, message) => {
    const a = attributes(pod({ containers: [container('app', resources)] }));
    expect(await refusal([limitRange('lr', { type: 'Container', ...item })], a)).toBe(`pods "p2" is forbidden: ${message}`);
  });

  it('checks init containers against Container items too', async () => {
    const a = attributes(pod({ containers: [container('app', both('1'))], initContainers: [container('setup', both('2'))] }));
    expect(await refusal([limitRange('lr', { type: 'Container', max: { cpu: '1' } })], a)).toBe('pods "p2" is forbidden: maximum cpu usage per Container is 1, but limit is 2');
  });

  it('lists several violations in brackets, joined by ", ", each message once', async () => {
    const lr = limitRange('lr', { type: 'Container', max: { cpu: '1', memory: '1Gi' }, min: { cpu: '100m' } });
    const a = attributes(pod({ containers: [container('a', { requests: { cpu: '2' } }), container('b', { requests: { cpu: '2' } })] }));
    expect(await refusal([lr], a)).toBe(
      'pods "p2" is forbidden: [maximum cpu usage per Container is 1.  No limit is specified, maximum memory usage per Container is 1Gi.  No limit is specified]',
    );
  });

  it('reports only the first LimitRange the pod breaks', async () => {
    const first = limitRange('a', { type: 'Container', max: { cpu: '1' } });
    const second = limitRange('b', { type: 'Container', max: { memory: '1Mi' } });
    const a = attributes(pod({ containers: [container('app', both('2', '2Mi'))] }));
    expect(await refusal([first, second], a)).toBe('pods "p2" is forbidden: maximum cpu usage per Container is 1, but limit is 2');
  });

  it.each<[string, Obj, Obj, string | undefined, string[]?]>([
    ['containers summed', { max: { cpu: '1' } }, { containers: [container('a', both('600m')), container('b', both('600m'))] }, 'maximum cpu usage per Pod is 1, but limit is 1200m'],
    ['memory summed in binary units', { max: { memory: '1Gi' } }, { containers: [container('a', both('1', '1Gi')), container('b', both('1', '512Mi'))] }, 'maximum memory usage per Pod is 1Gi, but limit is 1536Mi'],
    ['a container without the resource still adds what the others have', { min: { cpu: '1' } }, { containers: [container('a', both('600m')), container('b')] }, 'minimum cpu usage per Pod is 1, but request is 600m'],
    ['an init container that needs more than the containers', { max: { cpu: '1' } }, { containers: [container('a', both('500m'))], initContainers: [container('setup', both('2'))] }, 'maximum cpu usage per Pod is 1, but limit is 2'],
    ['init containers run one at a time', { max: { cpu: '1' } }, { containers: [container('a', both('500m'))], initContainers: [container('i1', both('1')), container('i2', both('1'))] }, undefined],
    [
      'a sidecar adds to the containers and to later init containers',
      { max: { cpu: '1' } },
      { containers: [container('a', both('500m'))], initContainers: [container('side', both('600m'), { restartPolicy: 'Always' }), container('late', both('300m'))] },
      'maximum cpu usage per Pod is 1, but limit is 1100m',
    ],
    ['the pod ratio of summed limits to summed requests', { maxLimitRequestRatio: { cpu: '2' } }, { containers: [container('a', { requests: { cpu: '100m' }, limits: { cpu: '300m' } })] }, 'cpu max limit to request ratio per Pod is 2, but provided ratio is 3.000000'],
    ['pod-level resources ignored with PodLevelResources off', { max: { cpu: '1' } }, { resources: { limits: { cpu: '1' } }, containers: [container('a', both('2'))] }, 'maximum cpu usage per Pod is 1, but limit is 2'],
    ['pod-level cpu replacing the containers with PodLevelResources on', { max: { cpu: '1' } }, { resources: { requests: { cpu: '1' }, limits: { cpu: '1' } }, containers: [container('a', both('2'))] }, undefined, ['PodLevelResources']],
  ])('Pod item: %s', async (_name, item, spec, message, gates = []) => {
    const got = await refusal([limitRange('lr', { type: 'Pod', ...item })], attributes(pod(spec)), gates);
    expect(got).toBe(message === undefined ? undefined : `pods "p2" is forbidden: ${message}`);
  });

  it.each<[string, Obj, Obj, string | undefined]>([
    ['a request inside the bounds', { min: { storage: '1Gi' }, max: { storage: '10Gi' } }, { requests: { storage: '5Gi' } }, undefined],
    ['a request below min', { min: { storage: '1Gi' } }, { requests: { storage: '500Mi' } }, 'minimum storage usage per PersistentVolumeClaim is 1Gi, but request is 500Mi'],
    ['a request above max', { max: { storage: '10Gi' } }, { requests: { storage: '20Gi' } }, 'maximum storage usage per PersistentVolumeClaim is 10Gi, but request is 20Gi'],
    ['no request under a max', { max: { storage: '10Gi' } }, { limits: { storage: '1Gi' } }, 'maximum storage usage per PersistentVolumeClaim is 10Gi.  No request is specified'],
    ['a limit above max (limits are not bounded)', { max: { storage: '10Gi' } }, { requests: { storage: '1Gi' }, limits: { storage: '20Gi' } }, undefined],
    ['a ratio (not applied to claims)', { max: { storage: '10Gi' }, maxLimitRequestRatio: { storage: '1' } }, { requests: { storage: '1Gi' }, limits: { storage: '2Gi' } }, undefined],
  ])('PersistentVolumeClaim item: %s', async (_name, item, resources, message) => {
    const got = await refusal([limitRange('lr', { type: 'PersistentVolumeClaim', ...item })], attributes(claim(resources), claimDef));
    expect(got).toBe(message === undefined ? undefined : `persistentvolumeclaims "c1" is forbidden: ${message}`);
  });

  it('answers kube-apiserver Forbidden status: code 403, details naming the resource and object', async () => {
    const a = attributes(pod({ containers: [container('app', both('4'))] }));
    const err = await plugin([limitRange('lr', { type: 'Container', max: { cpu: '1' } })])
      .validate!(a)
      .catch((e: unknown) => e);
    expect(isStatusError(err) && err.toStatus()).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'pods "p2" is forbidden: maximum cpu usage per Container is 1, but limit is 4',
      reason: 'Forbidden',
      details: { name: 'p2', kind: 'pods' },
      code: 403,
    });
  });

  it('names a pod by its generateName while it has no name', async () => {
    const a = attributes(pod({ containers: [container('app', both('4'))] }, { generateName: 'web-' }));
    expect(await refusal([limitRange('lr', { type: 'Container', max: { cpu: '1' } })], a)).toBe('pods "web-" is forbidden: maximum cpu usage per Container is 1, but limit is 4');
  });
});

describe('LimitRanger: which writes it looks at', () => {
  const p = plugin([]);
  const deleting = pod({ containers: [] }, { name: 'p2', deletionTimestamp: '2026-01-01T00:00:00Z' });
  it.each<[string, AdmissionAttributes, boolean]>([
    ['pod create', attributes(pod({ containers: [] })), true],
    ['pod update (containers cannot change)', attributes(pod({ containers: [] }), podDef, { operation: 'UPDATE', oldObject: pod({ containers: [] }) }), false],
    ['pods/status', attributes(pod({ containers: [] }), podDef, { operation: 'UPDATE', subresource: 'status', oldObject: pod({ containers: [] }) }), false],
    ['pods/ephemeralcontainers', attributes(pod({ containers: [] }), podDef, { operation: 'UPDATE', subresource: 'ephemeralcontainers', oldObject: pod({ containers: [] }) }), false],
    ['claim create', attributes(claim({}), claimDef), true],
    ['claim update', attributes(claim({}), claimDef, { operation: 'UPDATE', oldObject: claim({}) }), true],
    ['claim update of an object being deleted', attributes(claim({}), claimDef, { operation: 'UPDATE', oldObject: deleting }), false],
    ['persistentvolumeclaims/status', attributes(claim({}), claimDef, { operation: 'UPDATE', subresource: 'status', oldObject: claim({}) }), false],
    ['another kind', attributes({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } }, configMapDef), false],
  ])('%s', (_name, a, handled) => {
    expect(p.handles(a)).toBe(handled);
  });

  it('refuses with 403 when the LimitRanges cannot be read', async () => {
    const failing = limitRanger({ list: () => Promise.reject(new Error('etcdserver: request timed out')) });
    const err = await failing.validate!(attributes(pod({ containers: [] }))).catch((e: unknown) => e);
    expect(isStatusError(err) && [err.code, err.message]).toEqual([403, 'pods "p2" is forbidden: etcdserver: request timed out']);
  });
});

describe("Go's %f of a ratio", () => {
  it.each([
    [40, '40.000000'],
    [5 / 3, '1.666667'],
    // Exactly halfway at six decimals: Go rounds to even, where toFixed would round up.
    [1.0078125, '1.007812'],
    [1.0234375, '1.023438'],
    [1e21, '1000000000000000000000.000000'],
  ])('%d -> %s', (x, out) => {
    expect(goFixed6(x)).toBe(out);
  });
});
