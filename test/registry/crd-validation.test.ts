// ValidateCustomResourceDefinition's own rules with kube-apiserver 1.33's paths and messages
// (apiextensions-apiserver pkg/apis/apiextensions/validation/validation.go). kube validates the
// internal form, where what every version has alike (a single version's schema, subresources,
// columns, selectable fields) sits at the top of the spec, so those are reported at
// `spec.validation`, `spec.subresources`, `spec.additionalPrinterColumns[i]`; the conversion
// webhook is flattened to `spec.conversion.webhookClientConfig`. Each bad CRD is a 422 and is
// not stored.
import { describe, expect, it } from 'vitest';
import { useMemoryServer } from '../support/memory-server.js';

const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
const server = useMemoryServer();

type Obj = Record<string, any>;
interface Cause {
  reason: string;
  message: string;
  field: string;
}

const schema = (extra: Obj = {}): Obj => ({
  openAPIV3Schema: {
    type: 'object',
    properties: {
      spec: { type: 'object', properties: { size: { type: 'integer' }, color: { type: 'string' }, tags: { type: 'array', items: { type: 'string' } } } },
      status: { type: 'object', properties: { replicas: { type: 'integer' } } },
      ...extra,
    },
  },
});

function widget(mutate: (crd: Obj) => void = () => {}): Obj {
  const crd: Obj = {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'widgets.example.com' },
    spec: {
      group: 'example.com',
      names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
      scope: 'Namespaced',
      versions: [{ name: 'v1', served: true, storage: true, schema: schema() }],
    },
  };
  mutate(crd);
  return crd;
}

/** Go's %#v of one internal version without schema, subresources, columns or fields. */
const plainVersion = (name: string, storage: boolean): string =>
  `apiextensions.CustomResourceDefinitionVersion{Name:"${name}", Served:true, Storage:${storage}, Deprecated:false, DeprecationWarning:(*string)(nil), ` +
  `Schema:(*apiextensions.CustomResourceValidation)(nil), Subresources:(*apiextensions.CustomResourceSubresources)(nil), ` +
  'AdditionalPrinterColumns:[]apiextensions.CustomResourceColumnDefinition(nil), SelectableFields:[]apiextensions.SelectableField(nil)}';

const DNS1035 = "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";
const FORM = '; desired format: https://host[/path]';

const cases: [string, Obj, Partial<Cause>[]][] = [
  ['the name is not <plural>.<group>', widget((c) => (c.metadata.name = 'gadgets.example.com')), [{ field: 'metadata.name', reason: 'FieldValueInvalid', message: 'Invalid value: "gadgets.example.com": must be spec.names.plural+"."+spec.group' }]],
  [
    'a group without a dot',
    widget((c) => {
      c.spec.group = 'example';
      c.metadata.name = 'widgets.example';
    }),
    [{ field: 'spec.group', message: 'Invalid value: "example": should be a domain with at least one dot' }],
  ],
  ['an unknown scope', widget((c) => (c.spec.scope = 'Everywhere')), [{ field: 'spec.scope', reason: 'FieldValueNotSupported', message: 'Unsupported value: "Everywhere": supported values: "Cluster", "Namespaced"' }]],
  [
    'two storage versions',
    widget((c) => c.spec.versions.push({ name: 'v2', served: true, storage: true, schema: schema() })),
    [
      { field: 'spec.versions', message: `Invalid value: []apiextensions.CustomResourceDefinitionVersion{${plainVersion('v1', true)}, ${plainVersion('v2', true)}}: must have exactly one version marked as storage version` },
      { field: 'status.storedVersions', message: 'Invalid value: []string{"v1"}: must have the storage version v2' },
    ],
  ],
  [
    'no storage version',
    widget((c) => (c.spec.versions[0].storage = false)),
    [
      { field: 'spec.versions', message: `Invalid value: []apiextensions.CustomResourceDefinitionVersion{${plainVersion('v1', false)}}: must have exactly one version marked as storage version` },
      { field: 'status.storedVersions', message: 'Invalid value: []string(nil): must have at least one stored version' },
    ],
  ],
  [
    'a version name that is no DNS-1035 label (also reported as the internal spec.version)',
    widget((c) => (c.spec.versions[0].name = 'V1')),
    [
      { field: 'spec.versions[0].name', message: `Invalid value: "V1": ${DNS1035}` },
      { field: 'spec.version', message: `Invalid value: "V1": ${DNS1035}` },
    ],
  ],
  [
    'two versions of one name',
    widget((c) => c.spec.versions.push({ name: 'v1', served: true, storage: false, schema: schema() })),
    [{ field: 'spec.versions', message: `Invalid value: []apiextensions.CustomResourceDefinitionVersion{${plainVersion('v1', true)}, ${plainVersion('v1', false)}}: must contain unique version names` }],
  ],
  ['a version without schema', widget((c) => delete c.spec.versions[0].schema), [{ field: 'spec.versions[0].schema.openAPIV3Schema', reason: 'FieldValueRequired', message: 'Required value: schemas are required' }]],
  [
    'kind and listKind alike',
    widget((c) => (c.spec.names.listKind = 'Widget')),
    [{ field: 'spec.names.listKind', message: 'Invalid value: "Widget": kind and listKind may not be the same' }],
  ],
  [
    'a short name and a category that are no DNS-1035 labels, a kind with a dot',
    widget((c) => {
      c.spec.names.shortNames = ['W'];
      c.spec.names.categories = ['all', '1st'];
      c.spec.names.kind = 'Wid.get';
    }),
    [
      { field: 'spec.names.kind', message: `Invalid value: "Wid.get": may have mixed case, but should otherwise match: ${DNS1035}` },
      { field: 'spec.names.shortNames[0]', message: `Invalid value: "W": ${DNS1035}` },
      { field: 'spec.names.categories[1]', message: `Invalid value: "1st": ${DNS1035}` },
    ],
  ],
  [
    'a Webhook conversion without its webhook',
    widget((c) => (c.spec.conversion = { strategy: 'Webhook' })),
    [
      { field: 'spec.conversion.webhookClientConfig', reason: 'FieldValueRequired', message: 'Required value: required when strategy is set to Webhook' },
      { field: 'spec.conversion.conversionReviewVersions', reason: 'FieldValueRequired', message: 'Required value' },
    ],
  ],
  [
    'a webhook URL over http with user, query and fragment, and no known review version',
    widget((c) => (c.spec.conversion = { strategy: 'Webhook', webhook: { clientConfig: { url: 'http://me:pw@hook.example.com/convert?x=1#top' }, conversionReviewVersions: ['v3'] } })),
    [
      { field: 'spec.conversion.webhookClientConfig.url', message: `Invalid value: "http": 'https' is the only allowed URL scheme${FORM}` },
      { field: 'spec.conversion.webhookClientConfig.url', message: 'Invalid value: "me:pw": user information is not permitted in the URL' },
      { field: 'spec.conversion.webhookClientConfig.url', message: 'Invalid value: "top": fragments are not permitted in the URL' },
      { field: 'spec.conversion.webhookClientConfig.url', message: 'Invalid value: "x=1": query parameters are not permitted in the URL' },
      { field: 'spec.conversion.conversionReviewVersions', message: 'Invalid value: []string{"v3"}: must include at least one of v1, v1beta1' },
    ],
  ],
  [
    'a webhook with both url and service',
    widget((c) => (c.spec.conversion = { strategy: 'Webhook', webhook: { clientConfig: { url: 'https://hook.example.com', service: { name: 'hook', namespace: 'default' } }, conversionReviewVersions: ['v1'] } })),
    [{ field: 'spec.conversion.webhookClientConfig', reason: 'FieldValueRequired', message: 'Required value: exactly one of url or service is required' }],
  ],
  [
    'a webhook service without name, with a bad port and path',
    widget((c) => (c.spec.conversion = { strategy: 'Webhook', webhook: { clientConfig: { service: { name: '', namespace: 'default', port: 70000, path: '/a//B' } }, conversionReviewVersions: ['v1', 'v1'] } })),
    [
      { field: 'spec.conversion.webhookClientConfig.service.name', message: 'Required value: service name is required' },
      { field: 'spec.conversion.webhookClientConfig.service.port', message: 'Invalid value: 70000: port is not valid: must be between 1 and 65535, inclusive' },
      { field: 'spec.conversion.webhookClientConfig.service.path', message: 'Invalid value: "/a//B": segment[1] may not be empty' },
      {
        field: 'spec.conversion.webhookClientConfig.service.path',
        message:
          "Invalid value: \"/a//B\": segment[2]: a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
      },
      { field: 'spec.conversion.conversionReviewVersions[1]', message: 'Invalid value: "v1": duplicate version' },
    ],
  ],
  [
    'a webhook set while the strategy is None',
    widget((c) => (c.spec.conversion = { strategy: 'None', webhook: { clientConfig: { url: 'https://hook.example.com' }, conversionReviewVersions: ['v1'] } })),
    [
      { field: 'spec.conversion.webhookClientConfig', reason: 'FieldValueForbidden', message: 'Forbidden: should not be set when strategy is not set to Webhook' },
      { field: 'spec.conversion.conversionReviewVersions', reason: 'FieldValueForbidden', message: 'Forbidden: should not be set when strategy is not set to Webhook' },
    ],
  ],
  ['an unknown conversion strategy', widget((c) => (c.spec.conversion = { strategy: 'Magic' })), [{ field: 'spec.conversion.strategy', message: 'Unsupported value: "Magic": supported values: "None", "Webhook"' }]],
  [
    'scale paths outside .spec and .status (one version: reported at spec.subresources)',
    widget((c) => (c.spec.versions[0].subresources = { scale: { specReplicasPath: 'spec.replicas', statusReplicasPath: '.spec.replicas', labelSelectorPath: '.metadata.labels' } })),
    [
      { field: 'spec.subresources.scale.specReplicasPath', message: 'Invalid value: "spec.replicas": must be a simple json path starting with .' },
      { field: 'spec.subresources.scale.statusReplicasPath', message: 'Invalid value: ".spec.replicas": should be a json path under .status' },
      { field: 'spec.subresources.scale.labelSelectorPath', message: 'Invalid value: ".metadata.labels": should be a json path under either .spec or .status' },
    ],
  ],
  [
    'scale paths of one of two differing versions (reported at that version)',
    widget((c) => c.spec.versions.push({ name: 'v2', served: true, storage: false, schema: schema(), subresources: { scale: { specReplicasPath: '', statusReplicasPath: '.status.replicas' } } })),
    [{ field: 'spec.versions[1].subresources.scale.specReplicasPath', reason: 'FieldValueRequired', message: 'Required value' }],
  ],
  [
    'printer columns of an unknown type and format, without name, with a path not starting with .',
    widget((c) => (c.spec.versions[0].additionalPrinterColumns = [{ name: '', type: 'float', format: 'pct', jsonPath: 'spec.size' }])),
    [
      { field: 'spec.additionalPrinterColumns[0].name', reason: 'FieldValueRequired', message: 'Required value' },
      { field: 'spec.additionalPrinterColumns[0].type', message: 'Invalid value: "float": must be one of boolean,date,integer,number,string' },
      { field: 'spec.additionalPrinterColumns[0].format', message: 'Invalid value: "pct": must be one of byte,date,date-time,double,float,int32,int64,password' },
      { field: 'spec.additionalPrinterColumns[0].JSONPath', message: 'Invalid value: "spec.size": must be a simple json path starting with .' },
    ],
  ],
  [
    'selectable fields outside the schema, of a list, in metadata, twice',
    widget((c) => (c.spec.versions[0].selectableFields = [{ jsonPath: '.spec.size' }, { jsonPath: '.spec.tags' }, { jsonPath: '.spec.missing' }, { jsonPath: '.spec.size' }, { jsonPath: 'spec.color' }, { jsonPath: '.spec.tags[0]' }])),
    [
      { field: 'spec.selectableFields[1].jsonPath', message: 'Invalid value: ".spec.tags": must point to a field of type string, boolean or integer. Enum string fields and strings with formats are allowed.' },
      { field: 'spec.selectableFields[2].jsonPath', message: 'Invalid value: ".spec.missing": is an invalid path: does not refer to a valid field' },
      { field: 'spec.selectableFields[3].jsonPath', reason: 'FieldValueDuplicate', message: 'Duplicate value: ".spec.size"' },
      { field: 'spec.selectableFields[4].jsonPath', message: 'Invalid value: "spec.color": is an invalid path: expected [ or . but got: spec' },
      { field: 'spec.selectableFields[5].jsonPath', message: 'Invalid value: ".spec.tags[0]": is an invalid path: array notation is not allowed' },
    ],
  ],
  [
    'a schema rule (crd-schema) of the one version: at spec.validation',
    widget((c) => delete c.spec.versions[0].schema.openAPIV3Schema.properties.spec.type),
    [{ field: 'spec.validation.openAPIV3Schema.properties[spec].type', reason: 'FieldValueRequired', message: 'Required value: must not be empty for specified object fields' }],
  ],
  [
    'a CEL rule that does not compile (crd-cel) and a schema rule, in two differing versions',
    widget((c) => {
      c.spec.versions[0].schema.openAPIV3Schema.properties.spec['x-kubernetes-validations'] = [{ rule: 'self.nope > 1' }];
      c.spec.versions.push({ name: 'v2', served: true, storage: false, schema: schema() });
      delete c.spec.versions[1].schema.openAPIV3Schema.properties.status.type;
    }),
    [
      {
        field: 'spec.versions[0].schema.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule',
        message: expect.stringMatching(/^Invalid value: apiextensions\.ValidationRule\{Rule:"self\.nope > 1".*compilation failed: ERROR: <input>:1:5: undefined field 'nope'/s) as unknown as string,
      },
      { field: 'spec.versions[1].schema.openAPIV3Schema.properties[status].type', reason: 'FieldValueRequired', message: 'Required value: must not be empty for specified object fields' },
    ],
  ],
  [
    'a default that breaks its own CEL rule (kube validates defaults with the rules too)',
    widget((c) => (c.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.size = { type: 'integer', default: 0, 'x-kubernetes-validations': [{ rule: 'self > 0', message: 'must be positive' }] })),
    [{ field: 'spec.validation.openAPIV3Schema.properties[spec].properties[size].default', reason: 'FieldValueInvalid', message: 'Invalid value: "integer": must be positive' }],
  ],
  [
    'preserveUnknownFields true',
    widget((c) => (c.spec.preserveUnknownFields = true)),
    [{ field: 'spec.preserveUnknownFields', message: 'Invalid value: true: cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead' }],
  ],
  [
    'a deprecation warning on a version that is not deprecated',
    widget((c) => (c.spec.versions[0].deprecationWarning = 'old')),
    [{ field: 'spec.versions[0].deprecationWarning', message: 'Invalid value: "old": can only be set for deprecated versions' }],
  ],
  [
    'a deprecation warning with a control character',
    widget((c) => Object.assign(c.spec.versions[0], { deprecated: true, deprecationWarning: 'é\tx' })),
    [{ field: 'spec.versions[0].deprecationWarning', message: 'Invalid value: "é\\tx": must only contain printable UTF-8 characters; non-printable character found at index 2' }],
  ],
  [
    'a protected group without the API approval annotation',
    widget((c) => {
      c.spec.group = 'widgets.k8s.io';
      c.metadata.name = 'widgets.widgets.k8s.io';
    }),
    [{ field: 'metadata.annotations[api-approved.kubernetes.io]', reason: 'FieldValueRequired', message: 'Required value: protected groups must have approval annotation "api-approved.kubernetes.io", see https://github.com/kubernetes/enhancements/pull/1111' }],
  ],
  [
    'a protected group with an approval that is neither a URL nor unapproved',
    widget((c) => {
      c.spec.group = 'widgets.k8s.io';
      c.metadata.name = 'widgets.widgets.k8s.io';
      c.metadata.annotations = { 'api-approved.kubernetes.io': 'yes please' };
    }),
    [
      {
        field: 'metadata.annotations[api-approved.kubernetes.io]',
        message:
          'Invalid value: "yes please": protected groups must have approval annotation "api-approved.kubernetes.io" with either a URL or a reason starting with "unapproved", see https://github.com/kubernetes/enhancements/pull/1111',
      },
    ],
  ],
];

describe('CustomResourceDefinition validation (kube 1.33)', () => {
  it('accepts the base definition, and protected groups approved by URL or marked unapproved', async () => {
    // Under other names than the cases': those must stay free.
    for (const [group, annotation] of [
      ['example.org', undefined],
      ['a.k8s.io', 'https://github.com/kubernetes/enhancements/pull/1111'],
      ['b.k8s.io', 'unapproved, experimental'],
    ] as const) {
      const crd = widget((c) => {
        c.metadata.name = `widgets.${group}`;
        c.spec.group = group;
        if (annotation) c.metadata.annotations = { 'api-approved.kubernetes.io': annotation };
      });
      const res = await server.send('POST', CRDS, crd);
      expect(res.status, JSON.stringify(res.body)).toBe(201);
    }
  });

  it.each(cases)('%s', async (_name, crd, causes) => {
    const res = await server.send<{ reason: string; details: { causes: Cause[] } }>('POST', CRDS, { ...crd, metadata: { ...crd.metadata } });
    expect(res.status, JSON.stringify(res.body)).toBe(422);
    expect(res.body.reason).toBe('Invalid');
    expect(res.body.details.causes).toEqual(causes.map((c) => expect.objectContaining(c)));
    // The name of a valid request the bad one was made from stays free.
    expect((await server.send('GET', `${CRDS}/${crd.metadata.name as string}`)).status).not.toBe(200);
  });

  it('a schema member of the wrong JSON type is one cause at its path, and nothing is stored', async () => {
    const crd = widget((c) => {
      c.metadata.name = 'typos.example.com';
      c.spec.names = { plural: 'typos', kind: 'Typo' };
      c.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.tags.items = { type: 5 };
      c.spec.versions[0].schema.openAPIV3Schema.properties.spec.additionalProperties = 'yes';
    });
    const res = await server.send<{ details: { causes: Cause[] } }>('POST', CRDS, crd);
    expect(res.status).toBe(422);
    expect(res.body.details.causes.map((c) => c.field).sort()).toEqual([
      'spec.versions[0].schema.openAPIV3Schema.properties[spec].additionalProperties',
      'spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[tags].items.type',
    ]);
    expect((await server.send('GET', `${CRDS}/typos.example.com`)).status).toBe(404);
    expect((await server.raw('GET', '/readyz')).status).toBe(200);
  });
});
