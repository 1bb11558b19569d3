// Pod beyond its volumes: kube-apiserver's v1 defaults (SetDefaults_PodSpec, _Container, _Probe,
// _Pod), the PodSpec rules real manifests meet (ValidatePodSpec essentials), the strategy's
// create-time status (phase Pending, QoS class, SchedulingGated) and the update rule of
// ValidatePodUpdate, and the field selectors kube-apiserver indexes.

import { describe, expect, it } from 'vitest';
import { resources } from '../../generated/registry.js';
import { strategiesFor } from '../../runtime/registry/strategies/index.js';
import { podQOSClass } from '../../runtime/registry/strategies/pod/qos.js';
import { LABEL_MSG } from '../support/validator-kinds.js';

type Obj = Record<string, unknown>;
type Cause = { reason: string; field: string; message: string };

const def = resources.find((r) => r.kind === 'Pod');
if (!def) throw new Error('Pod is not served');
const { main, subresources } = strategiesFor(def);

const pod = (spec: Obj, name = 'web'): Obj => ({ metadata: { name, namespace: 'default' }, spec });
const basic = (extra: Obj = {}): Obj => pod({ containers: [{ name: 'app', image: 'nginx:1.27' }], ...extra });
const created = (obj: Obj): Obj => {
  const copy = structuredClone(obj);
  main.prepareForCreate(copy);
  return copy;
};
const specOf = (obj: Obj): Obj => obj.spec as Obj;
const container = (obj: Obj, i = 0): Obj => (specOf(obj).containers as Obj[])[i];

describe('Pod defaults (v1 defaulting) and create-time status', () => {
  it('fills the pod-level defaults', () => {
    const spec = specOf(created(basic()));
    expect(spec).toMatchObject({
      restartPolicy: 'Always',
      dnsPolicy: 'ClusterFirst',
      terminationGracePeriodSeconds: 30,
      schedulerName: 'default-scheduler',
      securityContext: {},
      enableServiceLinks: true,
    });
  });

  it('fills container defaults, with imagePullPolicy from the image tag', () => {
    const obj = created(pod({
      containers: [
        { name: 'a', image: 'nginx:1.27', ports: [{ containerPort: 80 }] },
        { name: 'b', image: 'nginx' },
        { name: 'c', image: 'nginx:latest' },
        { name: 'd', image: 'localhost:5000/team/app' },
        { name: 'e', image: 'nginx@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef' },
        { name: 'f', image: 'localhost:5000/app:2.0', imagePullPolicy: 'Never' },
      ],
    }));
    expect(container(obj)).toMatchObject({ terminationMessagePath: '/dev/termination-log', terminationMessagePolicy: 'File', imagePullPolicy: 'IfNotPresent', ports: [{ containerPort: 80, protocol: 'TCP' }] });
    expect((specOf(obj).containers as Obj[]).map((c) => c.imagePullPolicy)).toEqual(['IfNotPresent', 'Always', 'Always', 'Always', 'IfNotPresent', 'Never']);
  });

  it('fills probe and HTTP GET defaults', () => {
    const obj = created(pod({ containers: [{ name: 'a', image: 'x:1', livenessProbe: { httpGet: { port: 8080 } } }] }));
    expect(container(obj).livenessProbe).toEqual({ httpGet: { port: 8080, path: '/', scheme: 'HTTP' }, timeoutSeconds: 1, periodSeconds: 10, successThreshold: 1, failureThreshold: 3 });
  });

  it('defaults requests to limits', () => {
    const obj = created(pod({ containers: [{ name: 'a', image: 'x:1', resources: { limits: { cpu: '500m', memory: '64Mi' }, requests: { cpu: '250m' } } }] }));
    expect(container(obj).resources).toEqual({ limits: { cpu: '500m', memory: '64Mi' }, requests: { cpu: '250m', memory: '64Mi' } });
  });

  it('replaces any status with phase Pending and the QoS class, and sets generation 1', () => {
    const obj = created({ ...basic(), status: { phase: 'Running', podIP: '10.0.0.1' } });
    expect(obj.status).toEqual({ phase: 'Pending', qosClass: 'BestEffort' });
    expect((obj.metadata as Obj).generation).toBe(1);
  });

  it('marks a gated pod SchedulingGated', () => {
    const obj = created(basic({ schedulingGates: [{ name: 'example.com/wait' }] }));
    expect((obj.status as Obj).conditions).toEqual([{ type: 'PodScheduled', status: 'False', reason: 'SchedulingGated', message: 'Scheduling is blocked due to non-empty scheduling gates' }]);
  });

  it.each<[string, Obj, string]>([
    ['no resources', { containers: [{ name: 'a' }] }, 'BestEffort'],
    ['limits equal to requests for cpu and memory', { containers: [{ name: 'a', resources: { limits: { cpu: '1', memory: '1Gi' }, requests: { cpu: '1000m', memory: '1Gi' } } }] }, 'Guaranteed'],
    ['only limits (requests default to them)', { containers: [{ name: 'a', resources: { limits: { cpu: '1', memory: '1Gi' }, requests: { cpu: '1', memory: '1Gi' } } }] }, 'Guaranteed'],
    ['a request below its limit', { containers: [{ name: 'a', resources: { limits: { cpu: '1', memory: '1Gi' }, requests: { cpu: '500m', memory: '1Gi' } } }] }, 'Burstable'],
    // Quantities compare exactly, as resource.Quantity does: a double would call these two equal.
    ['a memory request one byte below its limit past 2^53', { containers: [{ name: 'a', resources: { limits: { cpu: '1', memory: '9007199254740993' }, requests: { cpu: '1', memory: '9007199254740992' } } }] }, 'Burstable'],
    ['a memory request only', { containers: [{ name: 'a', resources: { requests: { memory: '1Gi' } } }] }, 'Burstable'],
    ['one guaranteed container and one without resources', { containers: [{ name: 'a', resources: { limits: { cpu: '1', memory: '1Gi' }, requests: { cpu: '1', memory: '1Gi' } } }, { name: 'b' }] }, 'Burstable'],
  ])('QoS class for %s', (_name, spec, qos) => {
    expect(podQOSClass(spec)).toBe(qos);
  });
});

describe('Pod spec rules', () => {
  const causesOf = (obj: Obj): Cause[] => main.validate(created(obj)) as Cause[];

  it.each<[string, Obj]>([
    ['a minimal pod', basic()],
    ['init and regular containers with distinct names', pod({ initContainers: [{ name: 'init', image: 'busybox:1' }], containers: [{ name: 'app', image: 'nginx:1' }] })],
    ['mounts of existing volumes', pod({ volumes: [{ name: 'data', emptyDir: {} }], containers: [{ name: 'app', image: 'x:1', volumeMounts: [{ name: 'data', mountPath: '/data' }, { name: 'data', mountPath: '/other', subPath: 'o' }] }] })],
    ['named ports of every protocol', pod({ containers: [{ name: 'app', image: 'x:1', ports: [{ name: 'http', containerPort: 80 }, { containerPort: 53, protocol: 'UDP', hostPort: 53 }, { containerPort: 9, protocol: 'SCTP' }] }] })],
    ['restartPolicy Never and dnsPolicy None', basic({ restartPolicy: 'Never', dnsPolicy: 'None' })],
  ])('accepts %s', (_name, obj) => {
    expect(causesOf(obj)).toEqual([]);
  });

  it.each<[string, Obj, Cause[]]>([
    ['no containers', pod({}), [{ reason: 'FieldValueRequired', field: 'spec.containers', message: 'Required value' }]],
    ['a container without image', pod({ containers: [{ name: 'app' }] }), [{ reason: 'FieldValueRequired', field: 'spec.containers[0].image', message: 'Required value' }]],
    ['an image with surrounding spaces', pod({ containers: [{ name: 'app', image: ' nginx' }] }), [{ reason: 'FieldValueInvalid', field: 'spec.containers[0].image', message: 'Invalid value: " nginx": must not have leading or trailing whitespace' }]],
    ['a container name that is not a DNS label', pod({ containers: [{ name: 'App_1', image: 'x:1' }] }), [{ reason: 'FieldValueInvalid', field: 'spec.containers[0].name', message: `Invalid value: "App_1": ${LABEL_MSG}` }]],
    ['a container without name', pod({ containers: [{ image: 'x:1' }] }), [{ reason: 'FieldValueRequired', field: 'spec.containers[0].name', message: 'Required value' }]],
    ['two containers of one name', pod({ containers: [{ name: 'a', image: 'x:1' }, { name: 'a', image: 'y:1' }] }), [{ reason: 'FieldValueDuplicate', field: 'spec.containers[1].name', message: 'Duplicate value: "a"' }]],
    ['an init container named like a container', pod({ initContainers: [{ name: 'a', image: 'x:1' }], containers: [{ name: 'a', image: 'y:1' }] }), [{ reason: 'FieldValueDuplicate', field: 'spec.initContainers[0].name', message: 'Duplicate value: "a"' }]],
    ['an ephemeral container on create, here also named like a container', pod({ containers: [{ name: 'a', image: 'y:1' }], ephemeralContainers: [{ name: 'a', image: 'busybox:1' }] }), [
      { reason: 'FieldValueDuplicate', field: 'spec.ephemeralContainers[0].name', message: 'Duplicate value: "a"' },
      { reason: 'FieldValueForbidden', field: 'spec.ephemeralContainers', message: 'Forbidden: cannot be set on create' },
    ]],
    // kube counts a null item (decoded as a zero-valued container) as an ephemeral container too.
    ['a null ephemeral container on create', pod({ containers: [{ name: 'a', image: 'y:1' }], ephemeralContainers: [null] }), [
      { reason: 'FieldValueTypeInvalid', field: 'spec.ephemeralContainers[0]', message: 'Invalid value: "null": must be of type object' },
      { reason: 'FieldValueForbidden', field: 'spec.ephemeralContainers', message: 'Forbidden: cannot be set on create' },
    ]],
    ['a mount of an unknown volume', pod({ containers: [{ name: 'a', image: 'x:1', volumeMounts: [{ name: 'nope', mountPath: '/x' }] }] }), [{ reason: 'FieldValueNotFound', field: 'spec.containers[0].volumeMounts[0].name', message: 'Not found: "nope"' }]],
    ['a mount without mountPath', pod({ volumes: [{ name: 'v', emptyDir: {} }], containers: [{ name: 'a', image: 'x:1', volumeMounts: [{ name: 'v' }] }] }), [{ reason: 'FieldValueRequired', field: 'spec.containers[0].volumeMounts[0].mountPath', message: 'Required value' }]],
    ['one mount path twice', pod({ volumes: [{ name: 'v', emptyDir: {} }], containers: [{ name: 'a', image: 'x:1', volumeMounts: [{ name: 'v', mountPath: '/x' }, { name: 'v', mountPath: '/x' }] }] }), [{ reason: 'FieldValueInvalid', field: 'spec.containers[0].volumeMounts[1].mountPath', message: 'Invalid value: "/x": must be unique' }]],
    ['a port out of range', pod({ containers: [{ name: 'a', image: 'x:1', ports: [{ containerPort: 70000 }] }] }), [{ reason: 'FieldValueInvalid', field: 'spec.containers[0].ports[0].containerPort', message: 'Invalid value: 70000: must be between 1 and 65535, inclusive' }]],
    ['a port without containerPort', pod({ containers: [{ name: 'a', image: 'x:1', ports: [{ name: 'http' }] }] }), [{ reason: 'FieldValueRequired', field: 'spec.containers[0].ports[0].containerPort', message: 'Required value' }]],
    ['an unknown protocol', pod({ containers: [{ name: 'a', image: 'x:1', ports: [{ containerPort: 80, protocol: 'HTTP' }] }] }), [{ reason: 'FieldValueNotSupported', field: 'spec.containers[0].ports[0].protocol', message: 'Unsupported value: "HTTP": supported values: "SCTP", "TCP", "UDP"' }]],
    ['an unknown restartPolicy', basic({ restartPolicy: 'Sometimes' }), [{ reason: 'FieldValueNotSupported', field: 'spec.restartPolicy', message: 'Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never"' }]],
    ['an unknown dnsPolicy', basic({ dnsPolicy: 'Google' }), [{ reason: 'FieldValueNotSupported', field: 'spec.dnsPolicy', message: 'Unsupported value: "Google": supported values: "ClusterFirstWithHostNet", "ClusterFirst", "Default", "None"' }]],
    ['an unknown imagePullPolicy', pod({ containers: [{ name: 'a', image: 'x:1', imagePullPolicy: 'Sometimes' }] }), [{ reason: 'FieldValueNotSupported', field: 'spec.containers[0].imagePullPolicy', message: 'Unsupported value: "Sometimes": supported values: "Always", "IfNotPresent", "Never"' }]],
    ['activeDeadlineSeconds 0', basic({ activeDeadlineSeconds: 0 }), [{ reason: 'FieldValueInvalid', field: 'spec.activeDeadlineSeconds', message: 'Invalid value: 0: must be between 1 and 2147483647, inclusive' }]],
  ])('rejects %s', (_name, obj, causes) => {
    expect(causesOf(obj)).toEqual(causes);
  });
});

describe('Pod updates through the main resource', () => {
  const stored = (): Obj => {
    const obj = created(basic({ initContainers: [{ name: 'init', image: 'busybox:1' }], tolerations: [{ key: 'a', operator: 'Exists' }], schedulingGates: [{ name: 'g1' }, { name: 'g2' }], activeDeadlineSeconds: 600 }));
    (obj.metadata as Obj).resourceVersion = '1';
    return obj;
  };
  const update = (change: (spec: Obj) => void): Cause[] => {
    const old = stored();
    const next = structuredClone(old);
    change(next.spec as Obj);
    main.prepareForUpdate(next, old);
    return main.validateUpdate(next, old) as Cause[];
  };

  it.each<[string, (spec: Obj) => void]>([
    ['a new container image', (s) => ((s.containers as Obj[])[0].image = 'nginx:1.28')],
    ['a new init container image', (s) => ((s.initContainers as Obj[])[0].image = 'busybox:2')],
    ['a lower activeDeadlineSeconds', (s) => (s.activeDeadlineSeconds = 60)],
    ['an added toleration', (s) => (s.tolerations = [{ key: 'a', operator: 'Exists' }, { key: 'b', operator: 'Exists' }])],
    ['a removed scheduling gate', (s) => (s.schedulingGates = [{ name: 'g2' }])],
  ])('allows %s', (_name, change) => {
    expect(update(change)).toEqual([]);
  });

  it('forbids any other spec change, naming what may change', () => {
    const causes = update((s) => (s.restartPolicy = 'Never'));
    expect(causes).toHaveLength(1);
    expect(causes[0]).toMatchObject({ reason: 'FieldValueForbidden', field: 'spec' });
    expect(causes[0].message).toMatch(
      /^Forbidden: pod updates may not change fields other than `spec.containers\[\*\].image`,`spec.initContainers\[\*\].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` \(only additions to existing tolerations\),`spec.terminationGracePeriodSeconds` \(allow it to be set to 1 if it was previously negative\)\n/,
    );
    expect(causes[0].message).toContain('spec.restartPolicy: "Always" -> "Never"');
  });

  it.each<[string, (spec: Obj) => void, string]>([
    ['a removed toleration', (s) => (s.tolerations = []), 'spec.tolerations'],
    ['an added scheduling gate', (s) => (s.schedulingGates = [{ name: 'g1' }, { name: 'g2' }, { name: 'g3' }]), 'spec.schedulingGates'],
    ['a renamed container', (s) => ((s.containers as Obj[])[0].name = 'other'), 'spec.containers'],
  ])('forbids %s', (_name, change, mentioned) => {
    const causes = update(change);
    expect(causes.map((c) => [c.reason, c.field])).toEqual([['FieldValueForbidden', 'spec']]);
    expect(causes[0].message).toContain(mentioned);
  });

  it('rejects a raised or removed activeDeadlineSeconds', () => {
    expect(update((s) => (s.activeDeadlineSeconds = 900))).toEqual([{ reason: 'FieldValueInvalid', field: 'spec.activeDeadlineSeconds', message: 'Invalid value: 900: must be less than or equal to previous value' }]);
    expect(update((s) => delete s.activeDeadlineSeconds)).toEqual([{ reason: 'FieldValueInvalid', field: 'spec.activeDeadlineSeconds', message: 'Invalid value: null: must not update from a positive integer to nil value' }]);
  });

  it('bumps metadata.generation when the spec changes, not otherwise', () => {
    const old = stored();
    const same = structuredClone(old);
    main.prepareForUpdate(same, old);
    expect((same.metadata as Obj).generation).toBe(1);
    const changed = structuredClone(old);
    (specOf(changed).containers as Obj[])[0].image = 'nginx:2';
    main.prepareForUpdate(changed, old);
    expect((changed.metadata as Obj).generation).toBe(2);
  });

  it('the status subresource keeps the spec and takes the status', () => {
    const old = stored();
    const next = structuredClone(old);
    next.status = { phase: 'Running', podIP: '10.1.2.3', podIPs: [{ ip: '10.1.2.3' }] };
    (specOf(next).containers as Obj[])[0].image = 'ignored:1';
    subresources.status.prepareForUpdate(next, old);
    expect(next.spec).toEqual(old.spec);
    expect((next.status as Obj).phase).toBe('Running');
  });
});

describe('Pod field selectors', () => {
  it('offers the fields kube-apiserver indexes for pods', () => {
    const obj = created(basic({ nodeName: 'node-1', serviceAccountName: 'builder', hostNetwork: true }));
    obj.status = { phase: 'Running', podIP: '10.0.0.9', nominatedNodeName: 'node-2' };
    expect(main.selectableFields(obj)).toEqual({
      'metadata.name': 'web',
      'metadata.namespace': 'default',
      'spec.nodeName': 'node-1',
      'spec.restartPolicy': 'Always',
      'spec.schedulerName': 'default-scheduler',
      'spec.serviceAccountName': 'builder',
      'spec.hostNetwork': 'true',
      'status.phase': 'Running',
      'status.podIP': '10.0.0.9',
      'status.nominatedNodeName': 'node-2',
    });
  });
});

describe('Pod container details', () => {
  const causesOf = (containerExtra: Obj, podExtra: Obj = {}): Cause[] =>
    main.validate(created(pod({ containers: [{ name: 'app', image: 'x:1', ...containerExtra }], ...podExtra }))) as Cause[];

  it.each<[string, Obj, Obj]>([
    ['probes of each handler', { livenessProbe: { exec: { command: ['true'] } }, readinessProbe: { tcpSocket: { port: 80 } }, startupProbe: { grpc: { port: 9000 } } }, {}],
    ['lifecycle hooks', { lifecycle: { postStart: { exec: { command: ['a'] } }, preStop: { sleep: { seconds: 5 } } } }, {}],
    ['requests at their limits', { resources: { requests: { cpu: '1', memory: '1Gi' }, limits: { cpu: '1000m', memory: '1Gi' } } }, {}],
    ['tolerations of each form', {}, { tolerations: [{ operator: 'Exists' }, { key: 'a', value: 'b' }, { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 }] }],
  ])('accepts %s', (_name, extra, podExtra) => {
    expect(causesOf(extra, podExtra)).toEqual([]);
  });

  it.each<[string, Obj, Obj, Cause[]]>([
    ['a probe with two handlers', { livenessProbe: { exec: { command: ['true'] }, tcpSocket: { port: 80 } } }, {}, [{ reason: 'FieldValueForbidden', field: 'spec.containers[0].livenessProbe.tcpSocket', message: 'Forbidden: may not specify more than 1 handler type' }]],
    ['a probe without handler', { readinessProbe: { periodSeconds: 5 } }, {}, [{ reason: 'FieldValueRequired', field: 'spec.containers[0].readinessProbe', message: 'Required value: must specify a handler type' }]],
    ['a liveness probe needing two successes', { livenessProbe: { exec: { command: ['true'] }, successThreshold: 2 } }, {}, [{ reason: 'FieldValueInvalid', field: 'spec.containers[0].livenessProbe.successThreshold', message: 'Invalid value: 2: must be 1' }]],
    ['a negative probe period', { readinessProbe: { exec: { command: ['true'] }, periodSeconds: -1 } }, {}, [{ reason: 'FieldValueInvalid', field: 'spec.containers[0].readinessProbe.periodSeconds', message: 'Invalid value: -1: must be greater than or equal to 0' }]],
    ['a lifecycle hook without handler', { lifecycle: { preStop: {} } }, {}, [{ reason: 'FieldValueRequired', field: 'spec.containers[0].lifecycle.preStop', message: 'Required value: must specify a handler type' }]],
    ['a request above its limit', { resources: { requests: { cpu: '2' }, limits: { cpu: '500m' } } }, {}, [{ reason: 'FieldValueInvalid', field: 'spec.containers[0].resources.requests', message: 'Invalid value: "2": must be less than or equal to cpu limit of 500m' }]],
    ['a toleration without key that is not Exists', {}, { tolerations: [{ value: 'x' }] }, [{ reason: 'FieldValueInvalid', field: 'spec.tolerations[0].operator', message: 'Invalid value: "": operator must be Exists when `key` is empty, which means "match all values and all keys"' }]],
    ['tolerationSeconds without NoExecute', {}, { tolerations: [{ key: 'a', operator: 'Exists', effect: 'NoSchedule', tolerationSeconds: 10 }] }, [{ reason: 'FieldValueInvalid', field: 'spec.tolerations[0].effect', message: 'Invalid value: "NoSchedule": effect must be \'NoExecute\' when `tolerationSeconds` is set' }]],
    ['an unknown toleration operator', {}, { tolerations: [{ key: 'a', operator: 'In' }] }, [{ reason: 'FieldValueNotSupported', field: 'spec.tolerations[0].operator', message: 'Unsupported value: "In": supported values: "Equal", "Exists"' }]],
    ['an unknown taint effect', {}, { tolerations: [{ key: 'a', operator: 'Exists', effect: 'Never' }] }, [{ reason: 'FieldValueNotSupported', field: 'spec.tolerations[0].effect', message: 'Unsupported value: "Never": supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"' }]],
  ])('rejects %s', (_name, extra, podExtra, causes) => {
    expect(causesOf(extra, podExtra)).toEqual(causes);
  });
});

describe('Pod environment', () => {
  const causesOf = (containerExtra: Obj, podExtra: Obj = {}): Cause[] =>
    main.validate(created(pod({ containers: [{ name: 'app', image: 'x:1', ...containerExtra }], ...podExtra }))) as Cause[];

  it('accepts variables from each source and whole ConfigMaps and Secrets', () => {
    expect(causesOf({
      env: [
        { name: 'A', value: '1' },
        { name: 'B', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
        { name: 'C', valueFrom: { configMapKeyRef: { name: 'cm', key: 'c.key' } } },
        { name: 'D', valueFrom: { secretKeyRef: { name: 's', key: 'd', optional: true } } },
      ],
      envFrom: [{ configMapRef: { name: 'cm' } }, { prefix: 'S_', secretRef: { name: 's' } }],
    }, { nodeSelector: { 'kubernetes.io/os': 'linux' } })).toEqual([]);
  });

  it.each<[string, Obj, Obj, Cause[]]>([
    ['a variable without name', { env: [{ value: 'x' }] }, {}, [{ reason: 'FieldValueRequired', field: 'spec.containers[0].env[0].name', message: 'Required value' }]],
    ['valueFrom without a source', { env: [{ name: 'A', valueFrom: {} }] }, {}, [{ reason: 'FieldValueInvalid', field: 'spec.containers[0].env[0].valueFrom', message: 'Invalid value: "": must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef` or `secretKeyRef`' }]],
    ['value and valueFrom together', { env: [{ name: 'A', value: 'x', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }] }, {}, [{ reason: 'FieldValueInvalid', field: 'spec.containers[0].env[0].valueFrom', message: 'Invalid value: "": may not be specified when `value` is not empty' }]],
    ['two sources in valueFrom', { env: [{ name: 'A', valueFrom: { configMapKeyRef: { name: 'c', key: 'k' }, secretKeyRef: { name: 's', key: 'k' } } }] }, {}, [{ reason: 'FieldValueInvalid', field: 'spec.containers[0].env[0].valueFrom', message: 'Invalid value: "": may not have more than one field specified at a time' }]],
    ['a configMap key reference without name and key', { env: [{ name: 'A', valueFrom: { configMapKeyRef: {} } }] }, {}, [
      { reason: 'FieldValueRequired', field: 'spec.containers[0].env[0].valueFrom.configMapKeyRef.name', message: 'Required value' },
      { reason: 'FieldValueRequired', field: 'spec.containers[0].env[0].valueFrom.configMapKeyRef.key', message: 'Required value' },
    ]],
    ['envFrom with both references, reported at envFrom', { envFrom: [{ configMapRef: { name: 'c' }, secretRef: { name: 's' } }] }, {}, [{ reason: 'FieldValueInvalid', field: 'spec.containers[0].envFrom', message: 'Invalid value: "": may not have more than one field specified at a time' }]],
    ['envFrom with neither', { envFrom: [{ prefix: 'X_' }] }, {}, [{ reason: 'FieldValueInvalid', field: 'spec.containers[0].envFrom', message: 'Invalid value: "": must specify one of: `configMapRef` or `secretRef`' }]],
    ['a nodeSelector value that is not a label value', {}, { nodeSelector: { disk: 'fast ssd' } }, [{ reason: 'FieldValueInvalid', field: 'spec.nodeSelector', message: expect.stringContaining('Invalid value: "fast ssd": a valid label must be') }]],
  ])('rejects %s', (_name, extra, podExtra, causes) => {
    expect(causesOf(extra, podExtra)).toEqual(causes);
  });
});

describe('Pod status writes', () => {
  const statusCauses = (status: Obj): Cause[] => {
    const old = created(basic());
    (old.metadata as Obj).resourceVersion = '1';
    const next = { ...structuredClone(old), status };
    subresources.status.prepareForUpdate(next, old);
    return subresources.status.validateUpdate(next, old) as Cause[];
  };

  it('accepts a dual-stack pod with its host address', () => {
    expect(statusCauses({ phase: 'Running', podIP: '10.0.0.1', podIPs: [{ ip: '10.0.0.1' }, { ip: 'fd00::1' }], hostIP: '192.168.1.5', hostIPs: [{ ip: '192.168.1.5' }], nominatedNodeName: 'node-1' })).toEqual([]);
  });

  it.each<[string, Obj, Cause[]]>([
    ['an invalid pod IP', { podIPs: [{ ip: '10.0.0.300' }] }, [{ reason: 'FieldValueInvalid', field: 'status.podIPs[0]', message: 'Invalid value: "10.0.0.300": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)' }]],
    ['two IPv4 pod IPs', { podIPs: [{ ip: '10.0.0.1' }, { ip: '10.0.0.2' }] }, [{ reason: 'FieldValueInvalid', field: 'status.podIPs', message: 'Invalid value: [{"ip":"10.0.0.1"},{"ip":"10.0.0.2"}]: may specify no more than one IP for each IP family' }]],
    ['a hostIP other than the first hostIPs entry', { hostIP: '192.168.1.6', hostIPs: [{ ip: '192.168.1.5' }] }, [{ reason: 'FieldValueInvalid', field: 'status.hostIPs[0].ip', message: 'Invalid value: "192.168.1.5": must be equal to `hostIP`' }]],
    ['a nominated node name that is not a node name', { nominatedNodeName: 'Node_1' }, [{ reason: 'FieldValueInvalid', field: 'status.nominatedNodeName', message: expect.stringContaining('Invalid value: "Node_1": a lowercase RFC 1123 subdomain') }]],
  ])('rejects %s', (_name, status, causes) => {
    expect(statusCauses(status)).toEqual(causes);
  });

  it('checks the nominated node name only when the write changes it', () => {
    const old = created(basic());
    (old.metadata as Obj).resourceVersion = '1';
    old.status = { ...(old.status as Obj), nominatedNodeName: 'Node_1' };
    const next = { ...structuredClone(old), status: { ...(old.status as Obj), phase: 'Running' } };
    subresources.status.prepareForUpdate(next, old);
    expect(subresources.status.validateUpdate(next, old)).toEqual([]);
  });
});

describe('Pod status writes: container state transitions (ValidateContainerStateTransition)', () => {
  const terminated = (name: string, exitCode = 0): Obj => ({ name, state: { terminated: { exitCode } } });
  const running = (name: string): Obj => ({ name, state: { running: {} } });
  const FORBIDDEN = 'Forbidden: may not be transitioned to non-terminated state';
  // SidecarContainers is on by default in 1.33; without it an init container's restartPolicy is dropped.
  const withSidecars = strategiesFor(def, (gate) => gate === 'SidecarContainers');
  /** Stores a pod with `extra` in its spec and `before` as its status, then writes `after` through pods/status. */
  const transition = (extra: Obj, before: Obj, after: Obj): Cause[] => {
    const old = structuredClone(basic({ initContainers: [{ name: 'setup', image: 'busybox:1' }, { name: 'proxy', image: 'envoy:1', restartPolicy: 'Always' }], ...extra }));
    withSidecars.main.prepareForCreate(old);
    (old.metadata as Obj).resourceVersion = '1';
    old.status = { ...(old.status as Obj), ...before };
    const next = { ...structuredClone(old), status: { ...(old.status as Obj), ...after } };
    withSidecars.subresources.status.prepareForUpdate(next, old);
    return withSidecars.subresources.status.validateUpdate(next, old) as Cause[];
  };

  it.each<[string, Obj, Obj, Obj]>([
    ['a restart under restartPolicy Always', { restartPolicy: 'Always' }, { containerStatuses: [terminated('app')] }, { containerStatuses: [running('app')] }],
    ['a restart after a failure under OnFailure', { restartPolicy: 'OnFailure' }, { containerStatuses: [terminated('app', 1)] }, { containerStatuses: [running('app')] }],
    ['a terminated container staying terminated under Never', { restartPolicy: 'Never' }, { containerStatuses: [terminated('app')] }, { containerStatuses: [terminated('app', 2)] }],
    ['a running container moving on under Never', { restartPolicy: 'Never' }, { containerStatuses: [running('app')] }, { containerStatuses: [{ name: 'app', state: { waiting: {} } }] }],
    ['a terminated container whose status is dropped', { restartPolicy: 'Never' }, { containerStatuses: [terminated('app')] }, { containerStatuses: [] }],
    ['a sidecar init container restarting under Never', { restartPolicy: 'Never' }, { initContainerStatuses: [terminated('proxy')] }, { initContainerStatuses: [running('proxy')] }],
    ['an init container restarting under Always', { restartPolicy: 'Always' }, { initContainerStatuses: [terminated('setup')] }, { initContainerStatuses: [running('setup')] }],
  ])('accepts %s', (_name, extra, before, after) => {
    expect(transition(extra, before, after)).toEqual([]);
  });

  it.each<[string, Obj, Obj, Obj, Cause[]]>([
    ['a restart under Never', { restartPolicy: 'Never' }, { containerStatuses: [terminated('app')] }, { containerStatuses: [running('app')] }, [
      { reason: 'FieldValueForbidden', field: 'status.containerStatuses[0].state', message: FORBIDDEN },
    ]],
    ['a restart after success under OnFailure', { restartPolicy: 'OnFailure' }, { containerStatuses: [terminated('app')] }, { containerStatuses: [running('app')] }, [
      { reason: 'FieldValueForbidden', field: 'status.containerStatuses[0].state', message: FORBIDDEN },
    ]],
    // The index is the stored status's, and every new status of that name counts.
    ['a status without state, at the stored index, once per namesake', { restartPolicy: 'Never' }, { containerStatuses: [running('other'), terminated('app')] }, { containerStatuses: [{ name: 'app' }, running('app')] }, [
      { reason: 'FieldValueForbidden', field: 'status.containerStatuses[1].state', message: FORBIDDEN },
      { reason: 'FieldValueForbidden', field: 'status.containerStatuses[1].state', message: FORBIDDEN },
    ]],
    ['an init container restarting under OnFailure after success', { restartPolicy: 'OnFailure' }, { initContainerStatuses: [terminated('setup')] }, { initContainerStatuses: [running('setup')] }, [
      { reason: 'FieldValueForbidden', field: 'status.initContainerStatuses[0].state', message: FORBIDDEN },
    ]],
    // Ephemeral containers are never restarted, whatever the pod's policy.
    ['an ephemeral container restarting under Always', { restartPolicy: 'Always' }, { ephemeralContainerStatuses: [terminated('debug', 1)] }, { ephemeralContainerStatuses: [running('debug')] }, [
      { reason: 'FieldValueForbidden', field: 'status.ephemeralContainerStatuses[0].state', message: FORBIDDEN },
    ]],
    // ValidatePodStatusUpdate's order: the nominated node, the transitions, then the addresses.
    ['a transition among other faults, in kube order', { restartPolicy: 'Never' }, { containerStatuses: [terminated('app')] }, { containerStatuses: [running('app')], podIPs: [{ ip: '10.0.0.300' }], nominatedNodeName: 'Node_1' }, [
      { reason: 'FieldValueInvalid', field: 'status.nominatedNodeName', message: expect.stringContaining('Invalid value: "Node_1"') },
      { reason: 'FieldValueForbidden', field: 'status.containerStatuses[0].state', message: FORBIDDEN },
      { reason: 'FieldValueInvalid', field: 'status.podIPs[0]', message: expect.stringContaining('Invalid value: "10.0.0.300"') },
    ]],
  ])('rejects %s', (_name, extra, before, after, causes) => {
    expect(transition(extra, before, after)).toEqual(causes);
  });
});

describe('Pod ephemeral containers (pods/ephemeralcontainers)', () => {
  const write = (ephemeral: Obj[]): Cause[] => {
    const old = created(basic());
    (old.metadata as Obj).resourceVersion = '1';
    const next = structuredClone(old);
    specOf(next).ephemeralContainers = ephemeral;
    subresources.ephemeralcontainers.prepareForUpdate(next, old);
    return subresources.ephemeralcontainers.validateUpdate(next, old) as Cause[];
  };

  it('accepts a debugging container targeting a container', () => {
    expect(write([{ name: 'debug', image: 'busybox:1', targetContainerName: 'app', stdin: true, tty: true }])).toEqual([]);
  });

  it.each<[string, Obj, Cause[]]>([
    ['an unknown target container', { name: 'debug', image: 'busybox:1', targetContainerName: 'nope' }, [{ reason: 'FieldValueNotFound', field: 'spec.ephemeralContainers[0].targetContainerName', message: 'Not found: "nope"' }]],
    ['a probe, ports and resources', { name: 'debug', image: 'busybox:1', ports: [{ containerPort: 80 }], resources: { limits: { cpu: '1' } }, readinessProbe: { exec: { command: ['true'] } } }, [
      { reason: 'FieldValueForbidden', field: 'spec.ephemeralContainers[0].ports', message: 'Forbidden: cannot be set for an Ephemeral Container' },
      { reason: 'FieldValueForbidden', field: 'spec.ephemeralContainers[0].resources', message: 'Forbidden: cannot be set for an Ephemeral Container' },
      { reason: 'FieldValueForbidden', field: 'spec.ephemeralContainers[0].readinessProbe', message: 'Forbidden: cannot be set for an Ephemeral Container' },
    ]],
    ['a mount with subPath', { name: 'debug', image: 'busybox:1', volumeMounts: [{ name: 'v', mountPath: '/v', subPath: 'x' }] }, [
      { reason: 'FieldValueNotFound', field: 'spec.ephemeralContainers[0].volumeMounts[0].name', message: 'Not found: "v"' },
      { reason: 'FieldValueForbidden', field: 'spec.ephemeralContainers[0].volumeMounts[0].subPath', message: 'Forbidden: cannot be set for an Ephemeral Container' },
    ]],
    ['a debugging container without image', { name: 'debug' }, [{ reason: 'FieldValueRequired', field: 'spec.ephemeralContainers[0].image', message: 'Required value' }]],
  ])('rejects %s', (_name, container, causes) => {
    expect(write([container])).toEqual(causes);
  });
});
