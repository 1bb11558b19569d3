// The mapping of managedFields between a parent and its Scale, case by case as kube's ScaleHandler
// tests it: versions without a scale subresource keep their entries, versions the parent does not
// have are dropped, the replicas field moves to the Scale's owners, and times stay with the parent.
import { describe, expect, it } from 'vitest';
import { replicasFieldPath, ScaleManagedFields, type ReplicasPathMappings } from '../../runtime/registry/apply/scale-managed-fields.js';

const replicas = { 'f:spec': { 'f:replicas': {} } };
const mappings: ReplicasPathMappings = new Map([
  ['example.com/v1', replicasFieldPath('.spec.replicas')],
  ['example.com/v2', null],
]);

const entry = (manager: string, operation: string, apiVersion: string, fieldsV1: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  manager,
  operation,
  apiVersion,
  ...extra,
  fieldsType: 'FieldsV1',
  fieldsV1,
});

describe('ScaleManagedFields', () => {
  it('gives the Scale the owners of the replicas field only, in autoscaling/v1, with their times', () => {
    const parent = [
      entry('applier', 'Apply', 'example.com/v1', { 'f:spec': { 'f:replicas': {}, 'f:image': {} } }, { time: '2026-11-26T10:00:00Z' }),
      entry('labeler', 'Update', 'example.com/v1', { 'f:metadata': { 'f:labels': {} } }, { time: '2026-11-26T10:00:01Z' }),
      entry('old', 'Update', 'example.com/v2', replicas, { time: '2026-11-26T10:00:02Z' }),
      entry('gone', 'Update', 'example.com/v0', replicas),
    ];
    expect(new ScaleManagedFields(parent, 'example.com/v1', mappings).toSubresource()).toEqual([
      entry('applier', 'Apply', 'autoscaling/v1', replicas, { time: '2026-11-26T10:00:00Z' }),
    ]);
  });

  it('moves the replicas field to the Scale\'s owners and keeps every other entry', () => {
    const parent = [
      entry('applier', 'Apply', 'example.com/v1', { 'f:spec': { 'f:replicas': {}, 'f:image': {} } }, { time: '2026-11-26T10:00:00Z' }),
      entry('creator', 'Update', 'example.com/v1', replicas, { time: '2026-11-26T10:00:01Z' }),
      entry('v2writer', 'Update', 'example.com/v2', { 'f:spec': { 'f:image': {} } }, { time: '2026-11-26T10:00:02Z' }),
      entry('unknown', 'Update', 'example.com/v9', { 'f:spec': { 'f:image': {} } }),
    ];
    const scale = [entry('hpa', 'Update', 'autoscaling/v1', { 'f:spec': { 'f:replicas': {} }, 'f:status': { 'f:replicas': {} } }, { subresource: 'scale' })];
    expect(new ScaleManagedFields(parent, 'example.com/v1', mappings).toParent(scale)).toEqual([
      entry('applier', 'Apply', 'example.com/v1', { 'f:spec': { 'f:image': {} } }, { time: '2026-11-26T10:00:00Z' }),
      entry('hpa', 'Update', 'example.com/v1', replicas, { subresource: 'scale' }),
      entry('v2writer', 'Update', 'example.com/v2', { 'f:spec': { 'f:image': {} } }, { time: '2026-11-26T10:00:02Z' }),
    ]);
  });

  it('leaves an applier that still owns replicas on the Scale as it was', () => {
    const parent = [entry('applier', 'Apply', 'example.com/v1', { 'f:spec': { 'f:replicas': {}, 'f:image': {} } }, { time: '2026-11-26T10:00:00Z' })];
    const handler = new ScaleManagedFields(parent, 'example.com/v1', mappings);
    expect(handler.toParent(handler.toSubresource())).toEqual(parent);
    // A write whose Scale lost every manager (its field manager failed) strips the replicas field.
    expect(handler.toParent([])).toEqual([entry('applier', 'Apply', 'example.com/v1', { 'f:spec': { 'f:image': {} } }, { time: '2026-11-26T10:00:00Z' })]);
  });

  it('maps nested replicas paths and fails on entries it cannot read, as a plain 500', () => {
    expect(replicasFieldPath('.spec.scaling.replicas')).toEqual(['f:spec', 'f:scaling', 'f:replicas']);
    const broken = new ScaleManagedFields([{ manager: 'x', operation: 'Patch', apiVersion: 'example.com/v1', fieldsType: 'FieldsV1' }], 'example.com/v1', mappings);
    expect(() => broken.toSubresource()).toThrow(expect.objectContaining({ code: 500, reason: '', message: 'operation must be `Apply` or `Update`' }));
  });
});
