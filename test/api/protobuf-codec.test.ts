// The codec's rules beyond what the all-fields-set fixtures show: zero values, pointers,
// long bodies, int64 edges, the well-known JSON forms, lists, Status and watch framing.

import { describe, expect, it } from 'vitest';
import protobuf from 'protobufjs';
import {
  decodeMessage,
  decodeObject,
  decodeWatchEvent,
  encodeMessage,
  encodeObject,
  encodeStatus,
  encodeWatchEventFrame,
  messageNameResolver,
  splitFrames,
} from '../../runtime/api/protobuf/index.js';
import { formatGoDuration, parseGoDurationNs as parseGoDuration } from '../../runtime/machinery/duration.js';
import { specialMessage } from '../../runtime/api/protobuf/well-known.js';
import { WireWriter } from '../../runtime/api/protobuf/wire-writer.js';
import { notFound } from '../../runtime/errors/status-error.js';
import { negotiateErrorOutput, negotiateOutput } from '../../runtime/api/negotiation.js';
import { decodeInput, responseEncoder } from '../../runtime/api/serializers.js';
import { loadUpstreamRoot, upstreamAvailable } from '../support/proto-fields-descriptor.js';

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
const CM = 'k8s.io.api.core.v1.ConfigMap';
const OBJECT_META = 'k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta';

describe.runIf(upstreamAvailable())('protobuf codec', () => {
  const root = loadUpstreamRoot();
  const names = messageNameResolver(root);

  it('writes non-pointer scalars and messages even when absent, pointer fields only when set', () => {
    // ConfigMap{metadata: ObjectMeta{} (always written), immutable: *bool (absent)}
    // ObjectMeta: name (1) ... resourceVersion (6) are Go strings written as "", generation (7)
    // an int64 written as 0, creationTimestamp (8) a non-pointer Time: an empty message for the
    // zero time. deletionTimestamp (9) and deletionGracePeriodSeconds (10) are pointers: absent.
    const meta = '0a0012001a0022002a00320038004200';
    expect(hex(encodeMessage(root, OBJECT_META, {}))).toBe(meta);
    expect(hex(encodeMessage(root, CM, {}))).toBe(`0a10${meta}`);
    expect(hex(encodeMessage(root, CM, { immutable: false }))).toBe(`0a10${meta}2000`);
  });

  it('decodes zero scalars as absent, zero pointers as present', () => {
    expect(decodeMessage(root, CM, encodeMessage(root, CM, {}))).toEqual({ metadata: {} });
    expect(decodeMessage(root, OBJECT_META, encodeMessage(root, OBJECT_META, { name: '', generation: 0 }))).toEqual({});
    expect(decodeMessage(root, CM, encodeMessage(root, CM, { immutable: false }))).toEqual({
      metadata: {},
      immutable: false,
    });
  });

  it('sorts map keys and round-trips binary data as base64', () => {
    const cm = { metadata: { name: 'x' }, data: { b: '2', a: '1', c: '' }, binaryData: { z: 'AAEC', y: '' } };
    const bytes = encodeMessage(root, CM, cm);
    const decoded = decodeMessage(root, CM, bytes);
    expect(Object.keys(decoded.data as object)).toEqual(['a', 'b', 'c']);
    expect(decoded).toEqual({ metadata: { name: 'x' }, data: { a: '1', b: '2', c: '' }, binaryData: { y: '', z: 'AAEC' } });
  });

  it('handles bodies past one-byte lengths, multi-byte UTF-8 and long strings', () => {
    const long = 'ü'.repeat(70_000) + '€😀';
    const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'n', labels: { 'ключ': 'значение' } }, data: { big: long, small: 'é' } };
    const body = encodeObject(root, CM, cm);
    expect(decodeObject(root, body, names).object).toEqual(cm);
    // protobufjs' own encoder agrees on the bytes of the nested map entry.
    const entry = protobuf.Writer.create().uint32(0x0a).string('big').uint32(0x12).string(long).finish();
    expect(Buffer.from(body).includes(Buffer.from(entry))).toBe(true);
  });

  it('keeps int64 values exact, negative int32 sign-extended', () => {
    const meta = { generation: 2 ** 53 - 1, deletionGracePeriodSeconds: -5 };
    const decoded = decodeMessage(root, OBJECT_META, encodeMessage(root, OBJECT_META, meta));
    expect(decoded).toEqual(meta);
    const probe = decodeMessage(root, 'k8s.io.api.core.v1.Probe', encodeMessage(root, 'k8s.io.api.core.v1.Probe', { initialDelaySeconds: -1 }));
    expect(probe.initialDelaySeconds).toBe(-1);
    const negative = encodeMessage(root, 'k8s.io.api.core.v1.Probe', { initialDelaySeconds: -1 });
    // field 2 varint, ten bytes of two's complement
    expect(hex(negative)).toContain('10ffffffffffffffffff01');
  });

  it('flattens inline fields and maps Time, MicroTime, Quantity and IntOrString', () => {
    const probe = { httpGet: { path: '/healthz', port: 'http' }, periodSeconds: 3 };
    expect(decodeMessage(root, 'k8s.io.api.core.v1.Probe', encodeMessage(root, 'k8s.io.api.core.v1.Probe', probe))).toEqual(probe);
    const numericPort = { tcpSocket: { port: 8080 } };
    expect(decodeMessage(root, 'k8s.io.api.core.v1.Probe', encodeMessage(root, 'k8s.io.api.core.v1.Probe', numericPort))).toEqual(numericPort);

    const meta = { creationTimestamp: '1970-01-01T00:00:00Z', deletionTimestamp: '2024-02-29T12:34:56+02:00' };
    expect(decodeMessage(root, OBJECT_META, encodeMessage(root, OBJECT_META, meta))).toEqual({
      creationTimestamp: '1970-01-01T00:00:00Z',
      deletionTimestamp: '2024-02-29T10:34:56Z',
    });
    // Epoch is a real instant (seconds=0 written), unlike the zero time (empty message).
    expect(hex(encodeMessage(root, OBJECT_META, { creationTimestamp: '1970-01-01T00:00:00Z' }))).toContain('420408001000');

    const event = { eventTime: '2021-03-04T05:06:07.123456789Z', series: { count: 2, lastObservedTime: '2021-03-04T05:06:07.5Z' } };
    expect(decodeMessage(root, 'k8s.io.api.events.v1.Event', encodeMessage(root, 'k8s.io.api.events.v1.Event', event))).toMatchObject({
      eventTime: '2021-03-04T05:06:07.123456Z',
      series: { count: 2, lastObservedTime: '2021-03-04T05:06:07.500000Z' },
    });

    const node = { status: { capacity: { memory: 1024, cpu: '500m' } } };
    expect(decodeMessage(root, 'k8s.io.api.core.v1.Node', encodeMessage(root, 'k8s.io.api.core.v1.Node', node))).toMatchObject({
      status: { capacity: { cpu: '500m', memory: '1024' } },
    });
  });

  it('encodes lists as ListMeta plus repeated items', () => {
    const list = {
      apiVersion: 'v1',
      kind: 'ConfigMapList',
      metadata: { resourceVersion: '42', continue: 'token', remainingItemCount: 3 },
      items: [
        { metadata: { name: 'a', namespace: 'default' }, data: { k: 'v' } },
        { metadata: { name: 'b', namespace: 'default' } },
      ],
    };
    const decoded = decodeObject(root, encodeObject(root, `${CM}List`, list), names);
    expect(decoded.kind).toBe('ConfigMapList');
    expect(decoded.object).toEqual(list);
  });

  it('encodes Status errors', () => {
    const status = notFound({ group: '', resource: 'configmaps' }, 'missing').toStatus();
    const decoded = decodeObject(root, encodeStatus(root, status), names);
    expect(decoded).toMatchObject({ apiVersion: 'v1', kind: 'Status' });
    expect(decoded.object).toEqual(status);
  });

  it('frames watch events with a 4-byte big-endian length and an enveloped object inside', () => {
    const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', resourceVersion: '7' }, data: { x: 'y'.repeat(300) } };
    const one = encodeWatchEventFrame(root, 'ADDED', CM, cm);
    const two = encodeWatchEventFrame(root, 'DELETED', CM, cm);
    expect(new DataView(one.buffer, one.byteOffset).getUint32(0, false)).toBe(one.length - 4);
    const stream = Buffer.concat([one, two, two.subarray(0, 5)]);
    const { frames, rest } = splitFrames(stream);
    expect(frames).toHaveLength(2);
    expect(rest).toHaveLength(5);
    expect(decodeWatchEvent(root, frames[0], names)).toEqual({ type: 'ADDED', object: cm });
    expect(decodeWatchEvent(root, frames[1], names).type).toBe('DELETED');
    // The WatchEvent itself has no envelope; its RawExtension holds one.
    const event = decodeMessage(root, 'k8s.io.apimachinery.pkg.apis.meta.v1.WatchEvent', frames[0]);
    expect(event.type).toBe('ADDED');
    const inner = Buffer.from(encodeObject(root, CM, cm));
    expect(Buffer.from(frames[0]).includes(inner)).toBe(true);
  });

  it('serves protobuf through the negotiated encoder and decodes protobuf request bodies', () => {
    const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', namespace: 'default' }, data: { k: 'v' } };
    const encoder = responseEncoder(negotiateOutput('application/vnd.kubernetes.protobuf, */*'), root);
    expect(encoder.contentType).toBe('application/vnd.kubernetes.protobuf');
    const body = encoder.encode(cm, CM) as Uint8Array;
    expect(decodeInput('application/vnd.kubernetes.protobuf', body, { root, messageNameFor: names })).toEqual(cm);
    expect(decodeInput('application/vnd.cluster.protobuf', body, { root, messageNameFor: names })).toEqual(cm);
    // Errors take the negotiated type too; Status needs no message name.
    const status = notFound({ group: '', resource: 'configmaps' }, 'a').toStatus();
    const errorBody = responseEncoder(negotiateErrorOutput('application/vnd.kubernetes.protobuf'), root).encode(status) as Uint8Array;
    expect(decodeObject(root, errorBody, names).object).toEqual(status);
    const watch = responseEncoder(negotiateOutput('application/vnd.kubernetes.protobuf', { streaming: true }), root);
    expect(watch.contentType).toBe('application/vnd.kubernetes.protobuf;stream=watch');
    const frame = watch.encodeWatchEvent('MODIFIED', cm, CM) as Uint8Array;
    expect(decodeWatchEvent(root, splitFrames(frame).frames[0], names)).toEqual({ type: 'MODIFIED', object: cm });
  });

  it('accepts packed repeated numbers on decode', () => {
    const packed = protobuf.Writer.create().uint32((4 << 3) | 2).fork().int64(1).int64(2).int64(3).ldelim().finish();
    expect(decodeMessage(root, 'k8s.io.api.core.v1.PodSecurityContext', packed)).toEqual({ supplementalGroups: [1, 2, 3] });
  });

  it('rejects bodies without the magic prefix or with an unknown kind as 400', () => {
    expect(() => decodeObject(root, Buffer.from('{"kind":"ConfigMap"}'), names)).toThrow(/does not appear to be a protobuf message/);
    const cm = { apiVersion: 'v1', kind: 'NoSuchKind', metadata: {} };
    try {
      decodeObject(root, encodeObject(root, CM, cm), names);
      expect.unreachable();
    } catch (err) {
      expect(err).toMatchObject({ code: 400, reason: 'BadRequest' });
    }
  });

  it('encodes 1,000 objects with one cached plan per message', () => {
    const items = Array.from({ length: 1000 }, (_, i) => ({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: `cm-${i}`, namespace: 'default', uid: `uid-${i}`, resourceVersion: String(i), creationTimestamp: '2024-01-01T00:00:00Z' },
      data: { key: `value-${i}` },
    }));
    const bodies = items.map((item) => encodeObject(root, CM, item));
    expect(bodies.every((b, i) => decodeObject(root, b, names).object.metadata && (decodeObject(root, b, names).object as typeof items[0]).metadata.name === `cm-${i}`)).toBe(true);
  });
});

describe('Go durations', () => {
  it.each([
    ['0s', 0n],
    ['1ns', 1n],
    ['1.5µs', 1500n],
    ['150ms', 150_000_000n],
    ['1s', 1_000_000_000n],
    ['1m0s', 60_000_000_000n],
    ['1h2m3.5s', 3_723_500_000_000n],
    ['-2h0m0s', -7_200_000_000_000n],
    ['2562047h47m16.854775807s', 9_223_372_036_854_775_807n],
    // Go's minimum Duration; one nanosecond more either way is out of range.
    ['-2562047h47m16.854775808s', -9_223_372_036_854_775_808n],
  ])('%s <-> %s ns', (text, ns) => {
    expect(formatGoDuration(ns)).toBe(text);
    expect(parseGoDuration(text)).toBe(ns);
  });

  it('parses the short forms Go accepts', () => {
    expect(parseGoDuration('1h')).toBe(3_600_000_000_000n);
    expect(parseGoDuration('1.5h')).toBe(5_400_000_000_000n);
    expect(parseGoDuration('300us')).toBe(300_000n);
    expect(() => parseGoDuration('5')).toThrow();
    expect(() => parseGoDuration('')).toThrow();
    expect(() => parseGoDuration('2562047h47m16.854775808s')).toThrow('time: invalid duration "2562047h47m16.854775808s"');
    expect(() => parseGoDuration('-2562047h47m16.854775809s')).toThrow('time: invalid duration "-2562047h47m16.854775809s"');
  });
});

describe('the Duration message', () => {
  const duration = specialMessage('k8s.io.apimachinery.pkg.apis.meta.v1.Duration')!;
  const written = (text: string) => {
    const w = new WireWriter();
    duration.write(w, text);
    return w.finish();
  };

  // The server's bundle gives protobufjs no Long (esbuild.config.mjs): nanoseconds past 2^53 are
  // read from the varint's bytes, exactly, whichever way protobufjs reads int64s.
  it.each(['0s', '1ns', '-2h0m0s', '2562047h47m16.854775807s', '-2562047h47m16.854775808s', '104h15m0.000000001s'])('%s round-trips exactly', (text) => {
    expect(duration.read(written(text))).toBe(text);
  });

  it('refuses a varint cut short, as the Reader does', () => {
    const bytes = written('2562047h47m16.854775807s');
    expect(() => duration.read(bytes.subarray(0, bytes.length - 2))).toThrow(/index out of range/);
  });
});
