// The computed columns of `kubectl get pods` (kube-apiserver's pod table printer): READY counts
// ready running containers (and started sidecars), STATUS summarizes phase, reasons, init
// progress and deletion, RESTARTS adds the age of the last restart.
import { describe, expect, it } from 'vitest';
import { podPrinters, summarizePod } from '../../runtime/api/printers/pod.js';

type Obj = Record<string, unknown>;
const NOW = new Date('2026-01-01T12:00:00Z');

const pod = (spec: Obj, status: Obj, metadata: Obj = { name: 'p' }): Obj => ({ metadata, spec, status });
const one = { containers: [{ name: 'app' }] };

describe('pod STATUS and READY', () => {
  it.each<[string, Obj, string, string]>([
    ['a pending pod', pod(one, { phase: 'Pending' }), 'Pending', '0/1'],
    ['a running ready container', pod(one, { phase: 'Running', containerStatuses: [{ name: 'app', ready: true, state: { running: {} } }] }), 'Running', '1/1'],
    ['a waiting container reason', pod(one, { phase: 'Pending', containerStatuses: [{ name: 'app', ready: false, state: { waiting: { reason: 'ImagePullBackOff' } } }] }), 'ImagePullBackOff', '0/1'],
    ['a terminated container without reason', pod(one, { phase: 'Failed', containerStatuses: [{ name: 'app', state: { terminated: { exitCode: 2 } } }] }), 'ExitCode:2', '0/1'],
    ['a terminated container killed by a signal', pod(one, { phase: 'Failed', containerStatuses: [{ name: 'app', state: { terminated: { exitCode: 0, signal: 9 } } }] }), 'Signal:9', '0/1'],
    ['a status reason', pod(one, { phase: 'Failed', reason: 'Evicted' }), 'Evicted', '0/1'],
    ['a scheduling gate', pod(one, { phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'False', reason: 'SchedulingGated' }] }), 'SchedulingGated', '0/1'],
    ['an init container still running', pod({ ...one, initContainers: [{ name: 'i1' }, { name: 'i2' }] }, { phase: 'Pending', initContainerStatuses: [{ name: 'i1', state: { terminated: { exitCode: 0 } } }, { name: 'i2', state: { running: {} } }] }), 'Init:1/2', '0/1'],
    ['a failed init container', pod({ ...one, initContainers: [{ name: 'i1' }] }, { phase: 'Pending', initContainerStatuses: [{ name: 'i1', state: { terminated: { exitCode: 1, reason: 'Error' } } }] }), 'Init:Error', '0/1'],
    ['a started sidecar counts as a container', pod({ ...one, initContainers: [{ name: 'side', restartPolicy: 'Always' }] }, { phase: 'Running', initContainerStatuses: [{ name: 'side', started: true, ready: true, state: { running: {} } }], containerStatuses: [{ name: 'app', ready: true, state: { running: {} } }] }), 'Running', '2/2'],
    ['a pod being deleted', pod(one, { phase: 'Running' }, { name: 'p', deletionTimestamp: '2026-01-01T11:59:00Z' }), 'Terminating', '0/1'],
    ['a finished pod being deleted keeps its phase', pod(one, { phase: 'Succeeded' }, { name: 'p', deletionTimestamp: '2026-01-01T11:59:00Z' }), 'Succeeded', '0/1'],
  ])('%s', (_name, obj, status, ready) => {
    expect(podPrinters.podStatus(obj, NOW)).toBe(status);
    expect(podPrinters.podReady(obj, NOW)).toBe(ready);
  });

  it('Completed with a container still running reads Running or NotReady', () => {
    const statuses = [{ name: 'a', state: { terminated: { exitCode: 0, reason: 'Completed' } } }, { name: 'b', ready: true, state: { running: {} } }];
    const spec = { containers: [{ name: 'a' }, { name: 'b' }] };
    expect(summarizePod(pod(spec, { phase: 'Running', containerStatuses: statuses, conditions: [{ type: 'Ready', status: 'True' }] })).reason).toBe('Running');
    expect(summarizePod(pod(spec, { phase: 'Running', containerStatuses: statuses })).reason).toBe('NotReady');
  });
});

describe('pod RESTARTS and wide columns', () => {
  it('shows the restart count with the age of the last restart', () => {
    const obj = pod(one, { phase: 'Running', containerStatuses: [{ name: 'app', ready: true, restartCount: 3, state: { running: {} }, lastState: { terminated: { finishedAt: '2026-01-01T11:55:00Z' } } }] });
    expect(podPrinters.podRestarts(obj, NOW)).toBe('3 (5m ago)');
    expect(podPrinters.podRestarts(pod(one, { phase: 'Running' }), NOW)).toBe('0');
  });

  it('shows IP, node, nominated node and readiness gates', () => {
    const obj = pod({ ...one, nodeName: 'n1', readinessGates: [{ conditionType: 'example.com/lb' }, { conditionType: 'example.com/db' }] }, { podIPs: [{ ip: '10.0.0.1' }, { ip: 'fd00::1' }], nominatedNodeName: 'n2', conditions: [{ type: 'example.com/lb', status: 'True' }] });
    expect([podPrinters.podIP(obj, NOW), podPrinters.podNode(obj, NOW), podPrinters.podNominatedNode(obj, NOW), podPrinters.podReadinessGates(obj, NOW)]).toEqual(['10.0.0.1', 'n1', 'n2', '1/2']);
  });
});
