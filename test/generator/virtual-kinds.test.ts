// The `virtual: true` kind flag through every emitter: the registry marks the kind virtual,
// discovery shows it without a storageVersionHash, no list message, schema or type alias exists,
// and a map of wrapped lists (ExtraValue) is a protobuf map whose values are the wrapper message.

import { describe, expect, it } from 'vitest';
import { generateWithMeta } from './harness.js';

const REVIEW = `group: demo.example.com
version: v1
protoPackage: com.example.demo.v1
openAPIPrefix: com.example.demo.v1
kinds:
  WidgetReview:
    plural: widgetreviews
    scope: Cluster
    verbs: [create]
    virtual: true
    strategy: widgetreview
    fields:
      metadata: {type: meta/v1.ObjectMeta, tag: 1}
      status: {type: WidgetReviewStatus, tag: 2}
types:
  WidgetReviewStatus:
    fields:
      extra: {type: 'map[string][]string', tag: 1, protoMessage: Values}
  Values:
    protoOnly: true
    fields:
      items: {type: '[]string', tag: 1}
lifecycle: { introduced: "1.0" }
`;

describe('virtual kinds in the generated output', async () => {
  const { files } = await generateWithMeta({ 'demo/v1.yaml': REVIEW });
  const file = (path: string): string => {
    const found = files.find((f) => f.path === path);
    if (!found) throw new Error(`no generated ${path}`);
    return found.content;
  };

  it('marks the registry entry virtual, with no storage version hash', () => {
    const registry = file('registry.ts');
    expect(registry).toContain('virtual: true');
    expect(registry).toContain('storageVersionHash: ""');
  });

  it('lists the kind in discovery with verbs [create] and no storageVersionHash', () => {
    const list = JSON.parse(file('discovery/apis__demo.example.com__v1.json')) as { resources: Record<string, unknown>[] };
    expect(list.resources).toEqual([{ name: 'widgetreviews', singularName: 'widgetreview', namespaced: false, kind: 'WidgetReview', verbs: ['create'] }]);
  });

  it('emits no list message, schema or type alias (the registry entry still names them, as every entry must)', () => {
    const everything = files.filter((f) => f.path !== 'registry.ts').map((f) => f.content).join('\n');
    expect(everything).not.toContain('WidgetReviewList');
    expect(file('types/demo.example.com.v1.ts')).toContain('export type WidgetReview = ');
  });

  it('writes a map of wrapped lists as a protobuf map of the wrapper message', () => {
    const root = JSON.parse(file('protobuf/descriptors.json')) as Record<string, unknown>;
    const status = (root as { nested: { com: { nested: { example: { nested: { demo: { nested: { v1: { nested: Record<string, { fields: Record<string, unknown> }> } } } } } } } } }).nested.com.nested.example.nested.demo.nested.v1.nested;
    expect(status.WidgetReviewStatus.fields.extra).toEqual({ keyType: 'string', type: '.com.example.demo.v1.Values', id: 1 });
  });
});
