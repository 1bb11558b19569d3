// A pod's resource requests and limits over the real server, as kube-apiserver's
// validateResourceRequirements judges them (pkg/apis/core/validation): names a container may ask
// for (validateContainerResourceName) in containers, init and ephemeral containers, names pod-level
// resources support (validatePodResourceName), huge pages in whole pages and beside cpu or memory,
// and extended resources requested exactly at their limit. A refused pod is not stored.

import { describe, expect, it } from 'vitest';
import { useMemoryServer } from '../support/memory-server.js';

type Obj = Record<string, unknown>;
type Cause = { reason: string; field: string; message: string };
type Status = { kind: string; code: number; reason: string; details?: { causes?: Cause[] } };

const server = useMemoryServer({ featureGates: 'PodLevelResources=true' });
const PODS = '/api/v1/namespaces/default/pods';

let serial = 0;
const pod = (container: Obj, spec: Obj = {}): Obj => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: `res-${++serial}` },
  spec: { containers: [{ name: 'app', image: 'nginx:1.27', ...container }], ...spec },
});

const invalid = (field: string, value: string, detail: string): Cause => ({ reason: 'FieldValueInvalid', field, message: `Invalid value: ${JSON.stringify(value)}: ${detail}` });

/** Creates the pod, expects kube's 422 with exactly these causes, and that nothing was stored. */
async function refused(body: Obj, causes: Cause[]): Promise<void> {
  const name = (body.metadata as Obj).name as string;
  const res = await server.send<Status>('POST', PODS, body);
  expect(res.status).toBe(422);
  expect(res.body).toMatchObject({ kind: 'Status', code: 422, reason: 'Invalid' });
  expect(res.body.details?.causes).toEqual(causes);
  expect((await server.send('GET', `${PODS}/${name}`)).status).toBe(404);
}

const QUALIFIED_NAME_PART =
  "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";

describe('container resource names', () => {
  it('refuses a name that is neither standard nor qualified', async () => {
    await refused(pod({ resources: { requests: { cpux: '1' } } }), [
      invalid('spec.containers[0].resources.requests[cpux]', 'cpux', 'must be a standard resource type or fully qualified'),
      invalid('spec.containers[0].resources.requests[cpux]', 'cpux', 'must be a standard resource for containers'),
    ]);
  });

  it('refuses a quota name, standard but not for containers', async () => {
    await refused(pod({ resources: { requests: { 'requests.cpu': '1' } } }), [
      invalid('spec.containers[0].resources.requests[requests.cpu]', 'requests.cpu', 'must be a standard resource for containers'),
    ]);
  });

  it('refuses a domain without a name, in an init container', async () => {
    const body = pod({}, { initContainers: [{ name: 'init', image: 'busybox:1', resources: { limits: { 'example.com/': '1' } } }] });
    const at = 'spec.initContainers[0].resources';
    // IsQualifiedName reports an empty name part twice: empty, and not matching its pattern.
    const nameCauses = (path: string) => [
      invalid(path, 'example.com/', 'name part must be non-empty'),
      invalid(path, 'example.com/', QUALIFIED_NAME_PART),
      invalid(path, 'example.com/', "doesn't follow extended resource name standard"),
    ];
    // The request defaulted from the limit is judged too.
    await refused(body, [...nameCauses(`${at}.limits[example.com/]`), ...nameCauses(`${at}.requests[example.com/]`)]);
  });

  it('refuses a huge-pages name without a page size', async () => {
    const at = 'spec.containers[0].resources';
    await refused(pod({ resources: { limits: { 'hugepages-': '1Gi', memory: '1Gi' } } }), [
      invalid(`${at}.limits[hugepages-]`, 'hugepages-', QUALIFIED_NAME_PART),
      invalid(`${at}.limits[hugepages-]`, '1Gi', '1Gi is not positive integer multiple of hugepages-'),
      invalid(`${at}.requests[hugepages-]`, 'hugepages-', QUALIFIED_NAME_PART),
      invalid(`${at}.requests[hugepages-]`, '1Gi', '1Gi is not positive integer multiple of hugepages-'),
    ]);
  });

  it('refuses huge pages that are not whole pages, or without cpu or memory', async () => {
    const at = 'spec.containers[0].resources';
    await refused(pod({ resources: { limits: { 'hugepages-2Mi': '3Mi', memory: '1Gi' } } }), [
      invalid(`${at}.limits[hugepages-2Mi]`, '3Mi', '3Mi is not positive integer multiple of hugepages-2Mi'),
      invalid(`${at}.requests[hugepages-2Mi]`, '3Mi', '3Mi is not positive integer multiple of hugepages-2Mi'),
    ]);
    await refused(pod({ resources: { limits: { 'hugepages-2Mi': '4Mi' } } }), [{ reason: 'FieldValueForbidden', field: at, message: 'Forbidden: HugePages require cpu or memory' }]);
  });

  it('refuses an extended resource requested below its limit or without one', async () => {
    const at = 'spec.containers[0].resources';
    await refused(pod({ resources: { requests: { 'example.com/gpu': '1' }, limits: { 'example.com/gpu': '2' } } }), [
      invalid(`${at}.requests`, '1', 'must be equal to example.com/gpu limit of 2'),
    ]);
    await refused(pod({ resources: { requests: { 'example.com/gpu': '1' } } }), [
      { reason: 'FieldValueRequired', field: `${at}.limits`, message: 'Required value: Limit must be set for non overcommitable resources' },
    ]);
  });

  // ValidateResourceQuantityValue: an extended resource is an integer resource (IsIntegerResourceName),
  // whose quantity must be whole. The Quantity is the BadValue, printed by its String(), unquoted.
  it('refuses an extended resource that is not a whole number, in limits and the requests defaulted from them', async () => {
    const at = 'spec.containers[0].resources';
    const fraction = (field: string, shown: string): Cause => ({ reason: 'FieldValueInvalid', field, message: `Invalid value: ${shown}: must be an integer` });
    await refused(pod({ resources: { limits: { 'example.com/gpu': '1.5' } } }), [
      fraction(`${at}.limits[example.com/gpu]`, '1500m'),
      fraction(`${at}.requests[example.com/gpu]`, '1500m'),
    ]);
    await refused(pod({ resources: { requests: { 'example.com/gpu': '500m' }, limits: { 'example.com/gpu': '500m' } } }), [
      fraction(`${at}.limits[example.com/gpu]`, '500m'),
      fraction(`${at}.requests[example.com/gpu]`, '500m'),
    ]);
    // A thousandth rounds up: a nano is not whole either.
    await refused(pod({ resources: { limits: { 'example.com/gpu': '1n' } } }), [fraction(`${at}.limits[example.com/gpu]`, '1n'), fraction(`${at}.requests[example.com/gpu]`, '1n')]);
    // Negative and fractional: both causes, the first with the text quoted (ValidateNonnegativeQuantity passes String()).
    await refused(pod({}, { initContainers: [{ name: 'init', image: 'busybox:1', resources: { limits: { 'example.com/gpu': '-0.5' } } }] }), [
      invalid('spec.initContainers[0].resources.limits[example.com/gpu]', '-500m', 'must be greater than or equal to 0'),
      fraction('spec.initContainers[0].resources.limits[example.com/gpu]', '-500m'),
      invalid('spec.initContainers[0].resources.requests[example.com/gpu]', '-500m', 'must be greater than or equal to 0'),
      fraction('spec.initContainers[0].resources.requests[example.com/gpu]', '-500m'),
    ]);
  });

  it('stores a whole extended resource however it is written, and leaves native ones (cpu, kubernetes.io/ names) fractional', async () => {
    const body = pod({ resources: { limits: { cpu: '1.5', 'example.com/gpu': '1e3', 'example.com/fpga': '2000m', 'kubernetes.io/widget': '500m' } } });
    const res = await server.send<Obj>('POST', PODS, body);
    expect(res.status).toBe(201);
    expect(((res.body.spec as Obj).containers as Obj[])[0].resources).toEqual({
      limits: { cpu: '1500m', 'example.com/gpu': '1e3', 'example.com/fpga': '2', 'kubernetes.io/widget': '500m' },
      requests: { cpu: '1500m', 'example.com/gpu': '1e3', 'example.com/fpga': '2', 'kubernetes.io/widget': '500m' },
    });
  });

  it('refuses a bad name in an ephemeral container added through its subresource, and keeps the pod as it was', async () => {
    const body = pod({});
    const name = (body.metadata as Obj).name as string;
    const created = await server.send<Obj>('POST', PODS, body);
    expect(created.status).toBe(201);
    const debug = { ...created.body, spec: { ...(created.body.spec as Obj), ephemeralContainers: [{ name: 'debug', image: 'busybox:1', resources: { requests: { 'requests.memory': '1Gi' } } }] } };
    const res = await server.send<Status>('PUT', `${PODS}/${name}/ephemeralcontainers`, debug);
    expect(res.status).toBe(422);
    // Both of kube's causes: the name, and resources at all on an ephemeral container.
    const causes = res.body.details?.causes ?? [];
    expect(causes).toHaveLength(2);
    expect(causes).toEqual(
      expect.arrayContaining([
        invalid('spec.ephemeralContainers[0].resources.requests[requests.memory]', 'requests.memory', 'must be a standard resource for containers'),
        { reason: 'FieldValueForbidden', field: 'spec.ephemeralContainers[0].resources', message: 'Forbidden: cannot be set for an Ephemeral Container' },
      ]),
    );
    const stored = await server.send<Obj>('GET', `${PODS}/${name}`);
    expect((stored.body.spec as Obj).ephemeralContainers).toBeUndefined();
  });

  it('stores standard, huge-pages and extended names', async () => {
    const body = pod({ resources: { limits: { cpu: '500m', memory: '1Gi', 'ephemeral-storage': '1Gi', 'hugepages-2Mi': '4Mi', 'example.com/gpu': '1' } } });
    const res = await server.send<Obj>('POST', PODS, body);
    expect(res.status).toBe(201);
    const stored = await server.send<Obj>('GET', `${PODS}/${(body.metadata as Obj).name as string}`);
    expect(((stored.body.spec as Obj).containers as Obj[])[0].resources).toEqual({
      limits: { cpu: '500m', memory: '1Gi', 'ephemeral-storage': '1Gi', 'hugepages-2Mi': '4Mi', 'example.com/gpu': '1' },
      requests: { cpu: '500m', memory: '1Gi', 'ephemeral-storage': '1Gi', 'hugepages-2Mi': '4Mi', 'example.com/gpu': '1' },
    });
  });
});

describe('pod-level resource names (PodLevelResources)', () => {
  it('refuses a name that is not a resource, and one pod-level resources do not support', async () => {
    await refused(pod({}, { resources: { requests: { cpux: '1' } } }), [invalid('spec.resources.requests[cpux]', 'cpux', 'must be a standard resource type or fully qualified')]);
    await refused(pod({}, { resources: { requests: { 'ephemeral-storage': '1Gi' } } }), [
      { reason: 'FieldValueNotSupported', field: 'spec.resources.requests[ephemeral-storage]', message: 'Unsupported value: "ephemeral-storage": supported values: "cpu", "memory"' },
    ]);
  });

  it('stores cpu and memory', async () => {
    const res = await server.send<Obj>('POST', PODS, pod({}, { resources: { requests: { cpu: '1', memory: '1Gi' } } }));
    expect(res.status).toBe(201);
    expect((res.body.spec as Obj).resources).toMatchObject({ requests: { cpu: '1', memory: '1Gi' } });
  });
});
