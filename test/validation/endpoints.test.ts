// core/v1 Endpoints over HTTPS with kube-apiserver 1.33's rules (pkg/apis/core/validation
// validateEndpointSubsets, validateEndpointAddress, validateEndpointPort; the port protocol
// defaulted to TCP): each refused write is a 422 with kube's cause, carries the deprecation
// warning, and stores nothing; the server keeps answering.

import { describe, expect, it } from 'vitest';
import { useMemoryServer } from '../support/memory-server.js';

type Obj = Record<string, unknown>;
type Cause = { reason: string; field: string; message: string };
const P = '/api/v1/namespaces/default/endpoints';
const WARNING = '299 - "v1 Endpoints is deprecated in v1.33+; use discovery.k8s.io/v1 EndpointSlice"';
const LABEL_MSG =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const IP_MSG = 'must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)';

const server = useMemoryServer();
const ep = (name: string, subsets: Obj[]): Obj => ({ apiVersion: 'v1', kind: 'Endpoints', metadata: { name }, subsets });

describe('Endpoints', () => {
  it('stores a valid object with the protocol defaulted, and warns', async () => {
    const res = await server.send<Obj>('POST', P, ep('good', [{ addresses: [{ ip: '10.1.2.3', hostname: 'a', nodeName: 'node-1' }], notReadyAddresses: [{ ip: '2001:db8::1' }], ports: [{ port: 8080, appProtocol: 'http' }] }]));
    expect(res.status).toBe(201);
    expect(res.warnings).toEqual([WARNING]);
    expect(res.body.subsets).toEqual([{ addresses: [{ ip: '10.1.2.3', hostname: 'a', nodeName: 'node-1' }], notReadyAddresses: [{ ip: '2001:db8::1' }], ports: [{ port: 8080, protocol: 'TCP', appProtocol: 'http' }] }]);
    const headless = await server.send('POST', P, ep('headless', [{ addresses: [{ ip: '10.1.2.4' }] }]));
    expect(headless.status).toBe(201);
  });

  it.each<[string, Obj[], Cause[]]>([
    ['a subset without addresses', [{ ports: [{ port: 80 }] }], [{ reason: 'FieldValueRequired', field: 'subsets[0]', message: 'Required value: must specify `addresses` or `notReadyAddresses`' }]],
    ['two ports, one unnamed', [{ addresses: [{ ip: '10.0.0.1' }], ports: [{ name: 'a', port: 80 }, { port: 81 }] }], [{ reason: 'FieldValueRequired', field: 'subsets[0].ports[1].name', message: 'Required value' }]],
    ['a port out of range', [{ addresses: [{ ip: '10.0.0.1' }], ports: [{ port: 65536 }] }], [{ reason: 'FieldValueInvalid', field: 'subsets[0].ports[0].port', message: 'Invalid value: 65536: must be between 1 and 65535, inclusive' }]],
    ['a port without number', [{ addresses: [{ ip: '10.0.0.1' }], ports: [{ name: 'x' }] }], [{ reason: 'FieldValueInvalid', field: 'subsets[0].ports[0].port', message: 'Invalid value: 0: must be between 1 and 65535, inclusive' }]],
    ['an unknown protocol', [{ addresses: [{ ip: '10.0.0.1' }], ports: [{ port: 80, protocol: 'ICMP' }] }], [{ reason: 'FieldValueNotSupported', field: 'subsets[0].ports[0].protocol', message: 'Unsupported value: "ICMP": supported values: "SCTP", "TCP", "UDP"' }]],
    ['a port name that is no DNS label', [{ addresses: [{ ip: '10.0.0.1' }], ports: [{ name: 'HTTP', port: 80 }] }], [{ reason: 'FieldValueInvalid', field: 'subsets[0].ports[0].name', message: `Invalid value: "HTTP": ${LABEL_MSG}` }]],
    ['an address that is no IP', [{ notReadyAddresses: [{ ip: 'ten.zero' }] }], [{ reason: 'FieldValueInvalid', field: 'subsets[0].notReadyAddresses[0].ip', message: `Invalid value: "ten.zero": ${IP_MSG}` }]],
    ['an address without ip', [{ addresses: [{ hostname: 'h' }] }], [{ reason: 'FieldValueInvalid', field: 'subsets[0].addresses[0].ip', message: `Invalid value: "": ${IP_MSG}` }]],
    ['a loopback address', [{ addresses: [{ ip: '127.0.0.1' }] }], [{ reason: 'FieldValueInvalid', field: 'subsets[0].addresses[0].ip', message: 'Invalid value: "127.0.0.1": may not be in the loopback range (127.0.0.0/8, ::1/128)' }]],
    ['a link-local address', [{ addresses: [{ ip: 'fe80::1' }] }], [{ reason: 'FieldValueInvalid', field: 'subsets[0].addresses[0].ip', message: 'Invalid value: "fe80::1": may not be in the link-local range (169.254.0.0/16, fe80::/10)' }]],
    ['the unspecified address', [{ addresses: [{ ip: '0.0.0.0' }] }], [{ reason: 'FieldValueInvalid', field: 'subsets[0].addresses[0].ip', message: 'Invalid value: "0.0.0.0": may not be unspecified (0.0.0.0)' }]],
    ['a hostname that is no DNS label', [{ addresses: [{ ip: '10.0.0.1', hostname: 'a.b' }] }], [{ reason: 'FieldValueInvalid', field: 'subsets[0].addresses[0].hostname', message: 'Invalid value: "a.b": must not contain dots' }]],
  ])('refuses %s', async (_name, subsets, causes) => {
    const name = `bad-${Math.random().toString(36).slice(2, 8)}`;
    const res = await server.send<{ reason: string; details: { causes: Cause[] } }>('POST', P, ep(name, subsets));
    expect(res.status).toBe(422);
    expect(res.body.reason).toBe('Invalid');
    expect(res.body.details.causes).toEqual(causes);
    expect(res.warnings).toEqual([WARNING]);
    expect((await server.send('GET', `${P}/${name}`)).status).toBe(404);
  });

  it('validates updates the same way, leaving the stored object as it was', async () => {
    const got = await server.send<Obj & { metadata: Obj }>('GET', `${P}/headless`);
    const res = await server.send('PUT', `${P}/headless`, { ...ep('headless', [{ addresses: [{ ip: '169.254.1.1' }] }]), metadata: got.body.metadata });
    expect(res.status).toBe(422);
    expect((await server.send<Obj>('GET', `${P}/headless`)).body.subsets).toEqual([{ addresses: [{ ip: '10.1.2.4' }] }]);
  });
});
