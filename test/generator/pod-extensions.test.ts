// Spec-format extensions the Pod needed, each general: a printer column may name a runtime
// printer; a subresource may take a kind of another group version and name a handler of a
// virtual subresource (pods/eviction); rules of an embedded (jsonInline) struct apply to its
// holder; list map keys may live in an embedded struct.

import { describe, expect, it } from 'vitest';
import { generateWithMeta, specErrorsOf } from './harness.js';

const SPEC = `group: demo.example.com
version: v1
protoPackage: com.example.demo.v1
openAPIPrefix: com.example.demo.v1
kinds:
  Widget:
    plural: widgets
    scope: Namespaced
    verbs: [create, get, list]
    subresources:
      - {name: poke, kind: Poke, group: other.example.com, version: v2, handler: poke, verbs: [create]}
    printerColumns:
      - {name: Summary, type: string, description: "Computed in code.", printer: widgetSummary}
    fields:
      metadata: {type: meta/v1.ObjectMeta, tag: 1}
      parts: {type: '[]Part', tag: 2, listType: map, listMapKeys: [name]}
types:
  Part:
    fields:
      common: {type: PartCommon, tag: 1, jsonInline: true}
      extra: {type: string, tag: 2}
  PartCommon:
    fields:
      name: {type: string, tag: 1}
    rules:
      - {rule: "has(self.name)", fieldPath: .name, reason: FieldValueRequired}
lifecycle: { introduced: "1.0" }
`;

describe('spec-format extensions for pods', () => {
  it('carries printer names, foreign subresource kinds, handlers and embedded rules into the outputs', async () => {
    const { files } = await generateWithMeta({ 'demo/v1.yaml': SPEC });
    const byPath = new Map(files.map((f) => [f.path, f.content]));
    const registry = byPath.get('registry.ts') ?? '';
    expect(registry).toContain('"printer": "widgetSummary"');
    expect(registry).toContain('{ "name": "poke", "kind": "Poke", "group": "other.example.com", "version": "v2", "handler": "poke", "verbs": ["create"] }');
    const discovery = JSON.parse(byPath.get('discovery/apis__demo.example.com__v1.json') ?? '{}') as { resources: Record<string, unknown>[] };
    expect(discovery.resources.find((r) => r.name === 'widgets/poke')).toEqual({ name: 'widgets/poke', singularName: '', namespaced: true, group: 'other.example.com', version: 'v2', kind: 'Poke', verbs: ['create'] });
    const validators = byPath.get('validators/demo.example.com.v1.ts') ?? '';
    const part = validators.slice(validators.indexOf('"com.example.demo.v1.Part": {'));
    expect(part.slice(0, part.indexOf('\n  },'))).toContain('compileRule({ "rule": "has(self.name)"');
  });

  it('refuses a subresource group without a version', async () => {
    const bad = SPEC.replace('group: other.example.com, version: v2, ', 'group: other.example.com, ');
    expect(await specErrorsOf({ 'demo/v1.yaml': bad })).toEqual(['api-specs/demo/v1.yaml:11: kinds.Widget.subresources.0: group and version go together']);
  });
});
