// The Negotiator the verb handlers call, end to end over real bytes: protobuf and JSON bodies,
// Table and PartialObjectMetadata responses, Status errors, and watch streams.

import { describe, expect, it } from 'vitest';
import { createNegotiator } from '../../runtime/api/negotiator.js';
import { decodeObject, decodeWatchEvent, encodeObject, messageNameResolver, splitFrames } from '../../runtime/api/protobuf/index.js';
import { notFound } from '../../runtime/errors/status-error.js';
import type { PrinterColumn } from '../../runtime/registry/definition.js';
import { loadUpstreamRoot, upstreamAvailable } from '../support/proto-fields-descriptor.js';

const COLUMNS: PrinterColumn[] = [
  { name: 'Name', type: 'string', format: 'name', priority: 0, description: 'Object name (metadata.name).', jsonPath: '.metadata.name' },
  { name: 'Data', type: 'string', priority: 0, description: 'Count of keys in data plus binaryData.', cel: '(has(self.data) ? size(self.data) : 0) + (has(self.binaryData) ? size(self.binaryData) : 0)' },
];
const CONFIGMAPS = { group: '', version: 'v1', kind: 'ConfigMap' };
const TABLE = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json';
const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', namespace: 'default', resourceVersion: '5' }, data: { k: 'v' } };
const text = (body: string | Uint8Array) => (typeof body === 'string' ? body : Buffer.from(body).toString('utf8'));

describe.runIf(upstreamAvailable())('createNegotiator', () => {
  const root = loadUpstreamRoot();
  const names = messageNameResolver(root);
  const negotiator = createNegotiator({ root, columnsFor: (t) => (t.kind === 'ConfigMap' ? COLUMNS : undefined) });

  it('decodes protobuf, JSON and YAML bodies', () => {
    const pb = encodeObject(root, 'k8s.io.api.core.v1.ConfigMap', cm);
    expect(negotiator.decodeBody('application/vnd.kubernetes.protobuf', pb, CONFIGMAPS)).toEqual(cm);
    expect(negotiator.decodeBody('application/json', Buffer.from(JSON.stringify(cm)), CONFIGMAPS)).toEqual(cm);
    expect(negotiator.decodeBody('application/yaml', Buffer.from('kind: ConfigMap\napiVersion: v1\n'), CONFIGMAPS)).toEqual({ kind: 'ConfigMap', apiVersion: 'v1' });
    expect(() => negotiator.decodeBody('text/plain', Buffer.from(''), CONFIGMAPS)).toThrow(expect.objectContaining({ code: 415 }));
  });

  it('answers kubectl get with a Table, and client-go with protobuf', () => {
    const list = { apiVersion: 'v1', kind: 'ConfigMapList', metadata: { resourceVersion: '9' }, items: [cm] };
    const table = negotiator.encodeResponse(TABLE, list, CONFIGMAPS);
    expect(table.contentType).toBe('application/json');
    expect(JSON.parse(text(table.body))).toMatchObject({ kind: 'Table', metadata: { resourceVersion: '9' }, rows: [{ cells: ['a', 1] }] });
    const pb = negotiator.encodeResponse('application/vnd.kubernetes.protobuf, */*', list, CONFIGMAPS);
    expect(pb.contentType).toBe('application/vnd.kubernetes.protobuf');
    // Items of a protobuf list carry no apiVersion/kind: their messages have no such fields.
    const { apiVersion: _v, kind: _k, ...item } = cm;
    expect(decodeObject(root, pb.body as Uint8Array, names).object).toEqual({ ...list, items: [item] });
    const partial = negotiator.encodeResponse('application/vnd.kubernetes.protobuf;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1', list, CONFIGMAPS);
    expect(decodeObject(root, partial.body as Uint8Array, names).object).toEqual({
      apiVersion: 'meta.k8s.io/v1',
      kind: 'PartialObjectMetadataList',
      metadata: { resourceVersion: '9' },
      items: [{ metadata: cm.metadata }],
    });
  });

  it('refuses a Table for kinds without columns, and writes errors in the negotiated type', () => {
    const target = { group: 'example.com', version: 'v1', kind: 'Widget' };
    expect(() => negotiator.encodeResponse('application/json;as=Table;v=v1;g=meta.k8s.io', { kind: 'Widget' }, target)).toThrow(
      expect.objectContaining({ code: 406 }),
    );
    const status = notFound({ group: '', resource: 'configmaps' }, 'a').toStatus();
    const asTable = negotiator.encodeResponse(TABLE, status, CONFIGMAPS);
    expect(JSON.parse(text(asTable.body))).toEqual(status);
    const asProto = negotiator.encodeResponse('application/vnd.kubernetes.protobuf', status, CONFIGMAPS);
    expect(decodeObject(root, asProto.body as Uint8Array, names).object).toEqual(status);
  });

  it('streams Table watch events with headers once, and protobuf frames', () => {
    const json = negotiator.watchEncoder(TABLE, CONFIGMAPS);
    const first = JSON.parse(text(json.encode({ type: 'ADDED', object: cm })));
    const second = JSON.parse(text(json.encode({ type: 'MODIFIED', object: cm })));
    expect(first).toMatchObject({ type: 'ADDED', object: { kind: 'Table', columnDefinitions: [{ name: 'Name' }, { name: 'Data' }], rows: [{ cells: ['a', 1] }] } });
    expect(second.object.columnDefinitions).toBeNull();
    const pb = negotiator.watchEncoder('application/vnd.kubernetes.protobuf', CONFIGMAPS);
    expect(pb.contentType).toBe('application/vnd.kubernetes.protobuf;stream=watch');
    const frame = pb.encode({ type: 'DELETED', object: cm }) as Uint8Array;
    expect(decodeWatchEvent(root, splitFrames(frame).frames[0], names)).toEqual({ type: 'DELETED', object: cm });
    expect(() => negotiator.watchEncoder('application/yaml', CONFIGMAPS)).toThrow(expect.objectContaining({ code: 406 }));
  });
});
