// A kind stored as another group version's kind (storedAs, as events.k8s.io/v1 Event is stored
// as core/v1 Event): the model and the registry carry the stored apiVersion and the field renames,
// discovery's hash is the stored version's, and renames must name real fields exactly once.
// Printer columns may also list several timestamps (`age: .a|.b`).

import { describe, expect, it } from 'vitest';
import { storageVersionHash } from '../../generator/normalize.js';
import { generateWithMeta, specErrorsOf } from './harness.js';

const STORED = `group: old.example.com
version: v1
protoPackage: com.example.old.v1
openAPIPrefix: com.example.old.v1
kinds:
  Widget:
    plural: widgets
    scope: Namespaced
    verbs: [get, list]
    fields:
      metadata: {type: meta/v1.ObjectMeta, tag: 1}
      color: {type: string, tag: 2}
      seenAt: {type: time, tag: 3}
lifecycle: { introduced: "1.0" }
`;

/** Line numbers below refer to this text. */
const VIEW = `group: new.example.com
version: v1
protoPackage: com.example.new.v1
openAPIPrefix: com.example.new.v1
kinds:
  Widget:
    plural: widgets
    scope: Namespaced
    verbs: [get, list]
    storagePrefix: widgets
    storedAs:
      group: old.example.com
      version: v1
      fieldRenames: {colour: color, firstSeen: seenAt}
    printerColumns:
      - {name: Seen, type: string, description: "When.", age: .firstSeen|.metadata.creationTimestamp}
    fields:
      metadata: {type: meta/v1.ObjectMeta, tag: 1}
      colour: {type: string, tag: 2}
      firstSeen: {type: time, tag: 3}
      size: {type: int32, tag: 4}
lifecycle: { introduced: "1.0" }
`;

const run = (view: string) => generateWithMeta({ 'old/v1.yaml': STORED, 'new/v1.yaml': view });
const errorsOf = (view: string): Promise<string[]> => specErrorsOf({ 'old/v1.yaml': STORED, 'new/v1.yaml': view });

describe('storedAs', () => {
  it('puts the stored apiVersion, the renames and the stored hash into the model and the registry', async () => {
    const { model, files } = await run(VIEW);
    const view = model.groupVersions.find((gv) => gv.group === 'new.example.com')!.kinds[0]!;
    expect(view.storedAs).toEqual({ apiVersion: 'old.example.com/v1', fieldRenames: { colour: 'color', firstSeen: 'seenAt' } });
    expect(view.storageVersionHash).toBe(storageVersionHash('old.example.com', 'v1', 'Widget'));
    const registry = files.find((f) => f.path === 'registry.ts')!.content;
    expect(registry).toContain('storedAs: { "apiVersion": "old.example.com/v1", "fieldRenames": { "colour": "color", "firstSeen": "seenAt" } }');
    expect(registry).toContain('"age": ".firstSeen|.metadata.creationTimestamp"');
  });

  it('leaves kinds without storedAs as they were', async () => {
    const { model } = await run(VIEW);
    const stored = model.groupVersions.find((gv) => gv.group === 'old.example.com')!.kinds[0]!;
    expect(stored.storedAs).toBeUndefined();
    expect(stored.storageVersionHash).toBe(storageVersionHash('old.example.com', 'v1', 'Widget'));
  });

  it('refuses a rename of a field the kind does not have', async () => {
    expect(await errorsOf(VIEW.replace('colour: color,', 'hue: color,'))).toEqual(['api-specs/new/v1.yaml:14: kinds.Widget.storedAs.fieldRenames.hue: unknown field "hue" of Widget']);
  });

  it('refuses a stored name that a field keeping its name already has', async () => {
    expect(await errorsOf(VIEW.replace('firstSeen: seenAt}', 'firstSeen: size}'))).toEqual(['api-specs/new/v1.yaml:14: kinds.Widget.storedAs.fieldRenames.firstSeen: stored name "size" is already used']);
  });

  it('refuses storedAs together with storageVersion', async () => {
    expect(await errorsOf(VIEW.replace('    storagePrefix: widgets\n', '    storagePrefix: widgets\n    storageVersion: v2\n'))).toEqual([
      'api-specs/new/v1.yaml:12: kinds.Widget.storedAs: storedAs and storageVersion exclude each other',
    ]);
  });

  it('refuses an age column path list with an empty alternative', async () => {
    const errors = await errorsOf(VIEW.replace('age: .firstSeen|.metadata.creationTimestamp', 'age: .firstSeen|'));
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/^api-specs\/new\/v1.yaml:16: kinds.Widget.printerColumns.0.age: must match pattern/);
  });
});
