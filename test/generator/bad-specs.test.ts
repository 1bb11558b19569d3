// Every kind of bad spec stops the generator with `file:line: path: problem`.

import { describe, expect, it } from 'vitest';
import { generateWithMeta, specErrorsOf } from './harness.js';

/** A valid spec; each case replaces one line. Line numbers below refer to this text. */
const GOOD = `group: demo.example.com
version: v1
protoPackage: com.example.demo.v1
openAPIPrefix: com.example.demo.v1
kinds:
  Widget:
    plural: widgets
    scope: Namespaced
    verbs: [get, list]
    fields:
      metadata: {type: meta/v1.ObjectMeta, tag: 1}
      size: {type: int32, tag: 2}
      color: {type: string, tag: 3}
lifecycle: { introduced: "1.0" }
`;

const cases: [name: string, { from: string; to: string; want: string[] }][] = [
  ['kinds without a lifecycle', { from: 'lifecycle: { introduced: "1.0" }', to: '', want: ['api-specs/demo/v1.yaml:5: kinds: a group version with kinds states its lifecycle (at least lifecycle.introduced)'] }],
  [
    'removed before deprecated',
    {
      from: 'lifecycle: { introduced: "1.0" }',
      to: 'lifecycle: { introduced: "1.10", deprecated: "1.12", removed: "1.11" }',
      want: ['api-specs/demo/v1.yaml:6: kinds.Widget.lifecycle: removed before deprecated'],
    },
  ],
  ['a release that is not 1.x', { from: 'lifecycle: { introduced: "1.0" }', to: 'lifecycle: { introduced: "v1.0" }', want: ['api-specs/demo/v1.yaml:14: lifecycle.introduced: must match pattern "^[1-9][0-9]*\\.[0-9]+$"'] }],
  [
    'bad scalar type',
    {
      from: 'size: {type: int32, tag: 2}',
      to: 'size: {type: strin, tag: 2}',
      want: [
        'api-specs/demo/v1.yaml:12: kinds.Widget.fields.size.type: must be one of string, boolean, int32, int64, number, bytes, quantity, time, microTime, intOrString, duration, fieldsV1, rawExtension, json, jsonSchemaPropsOrArray, jsonSchemaPropsOrBool, jsonSchemaPropsOrStringArray, a type name, []T or map[string]T (got "strin")',
      ],
    },
  ],
  ['unknown field', { from: 'color: {type: string, tag: 3}', to: 'color: {type: string, tag: 3, colour: red}', want: ['api-specs/demo/v1.yaml:13: kinds.Widget.fields.color.colour: unknown field'] }],
  [
    'duplicate protobuf tag',
    { from: 'color: {type: string, tag: 3}', to: 'color: {type: string, tag: 2}', want: ['api-specs/demo/v1.yaml:13: kinds.Widget.fields.color.tag: duplicate protobuf tag 2 (also used by field size)'] },
  ],
  ['unknown type reference', { from: 'size: {type: int32, tag: 2}', to: 'size: {type: Gadget, tag: 2}', want: ['api-specs/demo/v1.yaml:12: kinds.Widget.fields.size.type: unknown type "Gadget"'] }],
  ['value not in an enum', { from: 'scope: Namespaced', to: 'scope: Somewhere', want: ['api-specs/demo/v1.yaml:8: kinds.Widget.scope: must be one of Cluster, Namespaced'] }],
  [
    'a garbage-collection policy kube does not have',
    { from: 'scope: Namespaced', to: 'scope: Namespaced\n    garbageCollectionPolicy: Orphan', want: ['api-specs/demo/v1.yaml:9: kinds.Widget.garbageCollectionPolicy: must be one of DeleteDependents, OrphanDependents, Unsupported'] },
  ],
  ['missing required field', { from: '    plural: widgets\n', to: '', want: ['api-specs/demo/v1.yaml:6: kinds.Widget.plural: required field is missing'] }],
  ['YAML syntax error', { from: 'verbs: [get, list]', to: 'verbs: [get, list', want: ['api-specs/demo/v1.yaml:10: Flow sequence in block collection must be sufficiently indented and end with a ]'] }],
  [
    'CEL syntax error',
    {
      from: 'color: {type: string, tag: 3}\n',
      to: "color: {type: string, tag: 3}\n    rules:\n      - rule: 'self.size >'\n",
      want: ['api-specs/demo/v1.yaml:15: kinds.Widget.rules.0.rule: CEL syntax error: Unexpected token: EOF'],
    },
  ],
  [
    'virtual kind serving a stored verb',
    {
      from: '    verbs: [get, list]\n',
      to: '    verbs: [get, list, update]\n    virtual: true\n    strategy: widgetreview\n',
      want: ['api-specs/demo/v1.yaml:9: kinds.Widget.verbs: a virtual kind serves create alone, or get and list (got get, list, update)'],
    },
  ],
  [
    'alwaysEmitted on a pointer list',
    {
      from: 'color: {type: string, tag: 3}',
      to: "color: {type: '[]string', tag: 3, goPointer: true, alwaysEmitted: true}",
      want: ['api-specs/demo/v1.yaml:13: kinds.Widget.fields.color.alwaysEmitted: only a list, map, non-pointer struct, boolean, string or integer without a default is always emitted'],
    },
  ],
  [
    'uniqueAmongValid without a single unique key',
    { from: 'color: {type: string, tag: 3}', to: "color: {type: '[]string', tag: 3, uniqueAmongValid: true}", want: ['api-specs/demo/v1.yaml:13: kinds.Widget.fields.color.uniqueAmongValid: needs uniqueKeys with exactly one key'] },
  ],
  [
    'elementOrder naming no field of the items',
    { from: 'color: {type: string, tag: 3}', to: "color: {type: '[]string', tag: 3, elementOrder: [hue]}", want: ['api-specs/demo/v1.yaml:13: kinds.Widget.fields.color.elementOrder: unknown field "hue" of the list\'s items'] },
  ],
  ['virtual kind without a handler', { from: 'verbs: [get, list]', to: 'verbs: [create]\n    virtual: true', want: ['api-specs/demo/v1.yaml:10: kinds.Widget.virtual: a virtual kind needs a strategy naming its handler'] }],
];

describe('bad specs', () => {
  it('accepts the unmodified spec', async () => {
    await expect(generateWithMeta({ 'demo/v1.yaml': GOOD })).resolves.toBeDefined();
  });

  it.each(cases)('%s', async (_name, { from, to, want }) => {
    expect(GOOD.includes(from), 'the case must change the spec').toBe(true);
    expect(await specErrorsOf({ 'demo/v1.yaml': GOOD.replace(from, to) })).toEqual(want);
  });
});
