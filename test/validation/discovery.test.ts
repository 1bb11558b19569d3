// discovery.k8s.io/v1 EndpointSlice with kube-apiserver's causes (pkg/apis/discovery/validation,
// the v1 defaulters and the strategy's dropped fields), plus the specification's limit of 100
// ports per slice.

import { describe, expect, it } from 'vitest';
import { resources } from '../../generated/registry.js';
import { strategiesFor } from '../../runtime/registry/strategies/index.js';
import { LABEL_MSG, SUBDOMAIN_MSG, validatorOf } from '../support/validator-kinds.js';

type Obj = Record<string, unknown>;
type Cause = { reason: string; field: string; message: string };

const eps = validatorOf('EndpointSlice');
const def = resources.find((r) => r.kind === 'EndpointSlice')!;

const slice = (extra: Obj = {}): Obj => ({
  metadata: { name: 'web-abc12', namespace: 'default' },
  addressType: 'IPv4',
  endpoints: [{ addresses: ['10.0.0.1'] }],
  ...extra,
});
const defaulted = (obj: Obj): Obj => {
  const copy = structuredClone(obj);
  eps.applyDefaults(copy);
  return copy;
};
const check = (obj: Obj): Cause[] => eps.validate(defaulted(obj)) as Cause[];
const stored = (obj: Obj): Obj => ({ ...defaulted(obj), metadata: { ...(obj.metadata as Obj), resourceVersion: '1', generation: 1 } });
const many = <T>(n: number, f: (i: number) => T): T[] => Array.from({ length: n }, (_, i) => f(i));

describe('EndpointSlice defaults', () => {
  it('defaults port protocol to TCP and port name to empty', () => {
    expect(defaulted(slice({ ports: [{ port: 80 }, { name: 'dns', protocol: 'UDP', port: 53 }] })).ports).toEqual([
      { name: '', protocol: 'TCP', port: 80 },
      { name: 'dns', protocol: 'UDP', port: 53 },
    ]);
  });
});

describe('EndpointSlice validation', () => {
  it.each<[string, Obj]>([
    ['an IPv4 slice', slice()],
    ['an IPv6 slice', slice({ addressType: 'IPv6', endpoints: [{ addresses: ['2001:db8::1', 'fd00::5'] }] })],
    ['an FQDN slice', slice({ addressType: 'FQDN', endpoints: [{ addresses: ['db.example.com', 'example.com.'] }] })],
    ['no endpoints and no ports', slice({ endpoints: [] })],
    ['1000 endpoints', slice({ endpoints: many(1000, (i) => ({ addresses: [`10.1.${i >> 8}.${i & 255 || 1}`] })) })],
    ['100 addresses in an endpoint', slice({ endpoints: [{ addresses: many(100, (i) => `10.2.0.${i + 1}`) }] })],
    ['100 ports', slice({ ports: many(100, (i) => ({ name: `p${i}`, port: 1000 + i })) })],
    ['a 63-character port name', slice({ ports: [{ name: `a${'b'.repeat(61)}c`, port: 1 }] })],
    ['ports with every protocol and no number', slice({ ports: [{ name: 'a', protocol: 'UDP' }, { name: 'b', protocol: 'SCTP' }, { name: 'c', protocol: 'TCP' }] })],
    ['IANA, kubernetes.io and prefixed app protocols', slice({ ports: [{ name: 'a', appProtocol: 'http' }, { name: 'b', appProtocol: 'kubernetes.io/h2c' }, { name: 'c', appProtocol: 'example.com/custom' }] })],
    ['a hostname, nodeName, zone, targetRef and conditions', slice({ endpoints: [{ addresses: ['10.0.0.1'], hostname: 'pod-1', nodeName: 'node-1.example', zone: 'us-east-1a', targetRef: { kind: 'Pod', name: 'p', namespace: 'default' }, conditions: { ready: true, serving: true, terminating: false } }] })],
    ['8 zone hints', slice({ endpoints: [{ addresses: ['10.0.0.1'], hints: { forZones: many(8, (i) => ({ name: `zone-${i}` })) } }] })],
    ['8 node hints', slice({ endpoints: [{ addresses: ['10.0.0.1'], hints: { forNodes: many(8, (i) => ({ name: `node-${i}` })) } }] })],
  ])('accepts %s', (_name, obj) => {
    expect(check(obj)).toEqual([]);
  });

  const ep = (extra: Obj): Obj => slice({ endpoints: [{ addresses: ['10.0.0.1'], ...extra }] });
  it.each<[string, Obj, Cause[]]>([
    ['a missing addressType', slice({ addressType: undefined }), [{ reason: 'FieldValueRequired', field: 'addressType', message: 'Required value' }]],
    ['an unknown addressType', slice({ addressType: 'IP' }), [{ reason: 'FieldValueNotSupported', field: 'addressType', message: 'Unsupported value: "IP": supported values: "FQDN", "IPv4", "IPv6"' }]],
    ['missing endpoints', slice({ endpoints: undefined }), [{ reason: 'FieldValueRequired', field: 'endpoints', message: 'Required value' }]],
    ['1001 endpoints', slice({ endpoints: many(1001, () => ({ addresses: ['10.0.0.1'] })) }), [{ reason: 'FieldValueTooMany', field: 'endpoints', message: 'Too many: 1001: must have at most 1000 items' }]],
    ['an endpoint without addresses', ep({ addresses: [] }), [{ reason: 'FieldValueRequired', field: 'endpoints[0].addresses', message: 'Required value: must contain at least 1 address' }]],
    // Over the limit kube-apiserver returns at once: the elements, invalid as they are, are not looked at.
    ['1001 invalid endpoints', slice({ endpoints: many(1001, () => ({ addresses: [], hostname: 'Bad_Host' })) }), [{ reason: 'FieldValueTooMany', field: 'endpoints', message: 'Too many: 1001: must have at most 1000 items' }]],
    ['101 invalid, duplicated ports', slice({ ports: many(101, () => ({ name: 'Bad_Name', port: 0, protocol: 'ICMP' })) }), [{ reason: 'FieldValueTooMany', field: 'ports', message: 'Too many: 101: must have at most 100 items' }]],
    ['9 invalid, duplicated zone hints', ep({ hints: { forZones: many(9, () => ({ name: '-bad-' })) } }), [{ reason: 'FieldValueTooMany', field: 'endpoints[0].hints.forZones', message: 'Too many: 9: must have at most 8 items' }]],
    ['101 addresses', ep({ addresses: many(101, (i) => `10.3.${i >> 8}.${(i & 255) + 1}`) }), [{ reason: 'FieldValueTooMany', field: 'endpoints[0].addresses', message: 'Too many: 101: must have at most 100 items' }]],
    ['an IPv6 address in an IPv4 slice', ep({ addresses: ['2001:db8::1'] }), [{ reason: 'FieldValueInvalid', field: 'endpoints[0].addresses[0]', message: 'Invalid value: "2001:db8::1": must be a valid IPv4 address' }]],
    ['a non-canonical IPv4 address', ep({ addresses: ['010.0.0.1'] }), [{ reason: 'FieldValueInvalid', field: 'endpoints[0].addresses[0]', message: 'Invalid value: "010.0.0.1": must be in canonical form ("10.0.0.1")' }]],
    ['a loopback IPv4 address', ep({ addresses: ['127.0.0.1'] }), [{ reason: 'FieldValueInvalid', field: 'endpoints[0].addresses[0]', message: 'Invalid value: "127.0.0.1": may not be in the loopback range (127.0.0.0/8, ::1/128)' }]],
    ['a link-local IPv4 address', ep({ addresses: ['169.254.169.254'] }), [{ reason: 'FieldValueInvalid', field: 'endpoints[0].addresses[0]', message: 'Invalid value: "169.254.169.254": may not be in the link-local range (169.254.0.0/16, fe80::/10)' }]],
    ['the unspecified IPv4 address', ep({ addresses: ['0.0.0.0'] }), [{ reason: 'FieldValueInvalid', field: 'endpoints[0].addresses[0]', message: 'Invalid value: "0.0.0.0": may not be unspecified (0.0.0.0)' }]],
    ['an IPv4 address in an IPv6 slice', slice({ addressType: 'IPv6', endpoints: [{ addresses: ['10.0.0.1'] }] }), [{ reason: 'FieldValueInvalid', field: 'endpoints[0].addresses[0]', message: 'Invalid value: "10.0.0.1": must be a valid IPv6 address' }]],
    ['a non-canonical IPv6 address', slice({ addressType: 'IPv6', endpoints: [{ addresses: ['2001:DB8::1'] }] }), [{ reason: 'FieldValueInvalid', field: 'endpoints[0].addresses[0]', message: 'Invalid value: "2001:DB8::1": must be in canonical form ("2001:db8::1")' }]],
    ['the IPv6 loopback', slice({ addressType: 'IPv6', endpoints: [{ addresses: ['::1'] }] }), [{ reason: 'FieldValueInvalid', field: 'endpoints[0].addresses[0]', message: 'Invalid value: "::1": may not be in the loopback range (127.0.0.0/8, ::1/128)' }]],
    ['a one-label FQDN', slice({ addressType: 'FQDN', endpoints: [{ addresses: ['localhost'] }] }), [{ reason: 'FieldValueInvalid', field: 'endpoints[0].addresses[0]', message: 'Invalid value: "localhost": should be a domain with at least two segments separated by dots' }]],
    ['an FQDN that is no subdomain', slice({ addressType: 'FQDN', endpoints: [{ addresses: ['Db.example.com'] }] }), [{ reason: 'FieldValueInvalid', field: 'endpoints[0].addresses[0]', message: `Invalid value: "Db.example.com": ${SUBDOMAIN_MSG}` }]],
    ['a hostname that is no DNS label', ep({ hostname: 'Pod-1' }), [{ reason: 'FieldValueInvalid', field: 'endpoints[0].hostname', message: `Invalid value: "Pod-1": ${LABEL_MSG}` }]],
    ['a hostname with dots', ep({ hostname: 'pod.1' }), [{ reason: 'FieldValueInvalid', field: 'endpoints[0].hostname', message: 'Invalid value: "pod.1": must not contain dots' }]],
    ['a nodeName that is no DNS subdomain', ep({ nodeName: 'Node_1' }), [{ reason: 'FieldValueInvalid', field: 'endpoints[0].nodeName', message: `Invalid value: "Node_1": ${SUBDOMAIN_MSG}` }]],
    ['9 zone hints', ep({ hints: { forZones: many(9, (i) => ({ name: `z${i}` })) } }), [{ reason: 'FieldValueTooMany', field: 'endpoints[0].hints.forZones', message: 'Too many: 9: must have at most 8 items' }]],
    ['a zone hint twice', ep({ hints: { forZones: [{ name: 'a' }, { name: 'a' }] } }), [{ reason: 'FieldValueDuplicate', field: 'endpoints[0].hints.forZones[1].name', message: 'Duplicate value: "a"' }]],
    ['9 node hints', ep({ hints: { forNodes: many(9, (i) => ({ name: `n${i}` })) } }), [{ reason: 'FieldValueTooMany', field: 'endpoints[0].hints.forNodes', message: 'Too many: 9: must have at most 8 items' }]],
    ['a node hint that is no DNS subdomain', ep({ hints: { forNodes: [{ name: 'Node_1' }] } }), [{ reason: 'FieldValueInvalid', field: 'endpoints[0].hints.forNodes[0].name', message: `Invalid value: "Node_1": ${SUBDOMAIN_MSG}` }]],
    ['101 ports (the specification\'s limit)', slice({ ports: many(101, (i) => ({ name: `p${i}`, port: i + 1 })) }), [{ reason: 'FieldValueTooMany', field: 'ports', message: 'Too many: 101: must have at most 100 items' }]],
    ['two ports of one name', slice({ ports: [{ name: 'http', port: 80 }, { name: 'http', port: 8080 }] }), [{ reason: 'FieldValueDuplicate', field: 'ports[1].name', message: 'Duplicate value: "http"' }]],
    ['two unnamed ports', slice({ ports: [{ port: 80 }, { port: 8080 }] }), [{ reason: 'FieldValueDuplicate', field: 'ports[1].name', message: 'Duplicate value: ""' }]],
    ['a port name that is no DNS label', slice({ ports: [{ name: 'HTTP', port: 80 }] }), [{ reason: 'FieldValueInvalid', field: 'ports[0].name', message: `Invalid value: "HTTP": ${LABEL_MSG}` }]],
    ['a 64-character port name', slice({ ports: [{ name: `a${'b'.repeat(62)}c`, port: 80 }] }), [{ reason: 'FieldValueInvalid', field: 'ports[0].name', message: `Invalid value: "a${'b'.repeat(62)}c": must be no more than 63 characters` }]],
    ['an unknown protocol', slice({ ports: [{ name: 'a', protocol: 'ICMP' }] }), [{ reason: 'FieldValueNotSupported', field: 'ports[0].protocol', message: 'Unsupported value: "ICMP": supported values: "SCTP", "TCP", "UDP"' }]],
    ['an appProtocol that is no qualified name', slice({ ports: [{ name: 'a', appProtocol: 'a/b/c' }] }), [{ reason: 'FieldValueInvalid', field: 'ports[0].appProtocol', message: "Invalid value: \"a/b/c\": a valid label key must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')" }]],
  ])('rejects %s', (_name, obj, causes) => {
    expect(check(obj)).toEqual(causes);
  });

  it('keeps addressType immutable', () => {
    const old = stored(slice());
    const changed = { ...structuredClone(old), addressType: 'IPv6', endpoints: [{ addresses: ['2001:db8::1'] }] };
    expect(eps.validateUpdate(changed, old)).toEqual([{ reason: 'FieldValueInvalid', field: 'addressType', message: 'Invalid value: "IPv6": field is immutable' }]);
    // ValidateEndpointSliceUpdate checks the new slice in full first, then the immutable type.
    const both = { ...structuredClone(old), addressType: 'IPv6' };
    expect(eps.validateUpdate(both, old).map((c) => c.field)).toEqual(['endpoints[0].addresses[0]', 'addressType']);
    expect(eps.validateUpdate({ ...structuredClone(old), endpoints: [{ addresses: ['10.0.0.9'] }] }, old)).toEqual([]);
  });
});

describe('EndpointSlice strategy', () => {
  const withTopology = (): Obj =>
    slice({ endpoints: [{ addresses: ['10.0.0.1'], deprecatedTopology: { 'kubernetes.io/hostname': 'node-1', rack: 'r1' } }] });

  it('drops deprecatedTopology written on create and sets generation 1', () => {
    const obj = defaulted(withTopology());
    strategiesFor(def).main.prepareForCreate(obj);
    expect(obj.endpoints).toEqual([{ addresses: ['10.0.0.1'] }]);
    expect((obj.metadata as Obj).generation).toBe(1);
  });

  it('keeps stored deprecatedTopology while the endpoints are unchanged, and moves a known hostname into nodeName otherwise', () => {
    const old = stored(withTopology());
    const same = structuredClone(old);
    (same.metadata as Obj).labels = { a: 'b' };
    strategiesFor(def).main.prepareForUpdate(same, old);
    expect(same.endpoints).toEqual(old.endpoints);
    // EndpointSlice counts labels as part of the slice for metadata.generation.
    expect((same.metadata as Obj).generation).toBe(2);

    const changed = structuredClone(old);
    (changed.endpoints as Obj[])[0]!.zone = 'z1';
    strategiesFor(def).main.prepareForUpdate(changed, old);
    expect(changed.endpoints).toEqual([{ addresses: ['10.0.0.1'], zone: 'z1', nodeName: 'node-1' }]);
    expect((changed.metadata as Obj).generation).toBe(2);
  });

  it('does not bump generation for an update that changes nothing', () => {
    const old = stored(slice());
    const same = structuredClone(old);
    strategiesFor(def).main.prepareForUpdate(same, old);
    expect((same.metadata as Obj).generation).toBe(1);
  });
});

describe('feature-gated fields (PreferSameTrafficDistribution: hints.forNodes)', () => {
  const hinted = (): Obj => slice({ endpoints: [{ addresses: ['10.0.0.1'], hints: { forZones: [{ name: 'z1' }], forNodes: [{ name: 'node-1' }] } }] });
  const off = () => false;
  const on = (gate: string) => gate === 'PreferSameTrafficDistribution';

  it('drops forNodes on create when the gate is off, keeps it when on', () => {
    const dropped = defaulted(hinted());
    strategiesFor(def, off).main.prepareForCreate(dropped);
    expect((dropped.endpoints as Obj[])[0]!.hints).toEqual({ forZones: [{ name: 'z1' }] });
    const kept = defaulted(hinted());
    strategiesFor(def, on).main.prepareForCreate(kept);
    expect((kept.endpoints as Obj[])[0]!.hints).toEqual({ forZones: [{ name: 'z1' }], forNodes: [{ name: 'node-1' }] });
  });

  it('drops forNodes on update when off unless the stored slice already uses it', () => {
    const plain = stored(slice({ endpoints: [{ addresses: ['10.0.0.1'] }] }));
    const adding = defaulted(hinted());
    strategiesFor(def, off).main.prepareForUpdate(adding, plain);
    expect((adding.endpoints as Obj[])[0]!.hints).toEqual({ forZones: [{ name: 'z1' }] });

    const inUse = stored(hinted());
    const next = structuredClone(inUse);
    ((next.endpoints as Obj[])[0]!.hints as Obj).forNodes = [{ name: 'node-2' }];
    strategiesFor(def, off).main.prepareForUpdate(next, inUse);
    expect(((next.endpoints as Obj[])[0]!.hints as Obj).forNodes).toEqual([{ name: 'node-2' }]);
  });

  it('leaves kinds without gated fields untouched', () => {
    const configMap = resources.find((r) => r.kind === 'ConfigMap')!;
    expect(configMap.validator.dropDisabledFields).toBeUndefined();
    expect(def.validator.dropDisabledFields).toBeTypeOf('function');
  });
});
