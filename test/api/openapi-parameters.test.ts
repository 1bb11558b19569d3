// The parameters of /openapi/v2 and /openapi/v3 carry kube-apiserver 1.33's descriptions, which
// come from the doc comments of the meta/v1 option types (ListOptions, DeleteOptions,
// CreateOptions, UpdateOptions, PatchOptions) and from the endpoint installer (pretty, name,
// namespace). The expected texts below are copied from kube-apiserver's served documents
// (kubernetes/kubernetes api/openapi-spec), parameter by parameter, so tools that diff or show
// the documents see the same words.
import { expect, it } from 'vitest';
import { useMemoryServer } from '../support/memory-server.js';

const api = useMemoryServer();

interface Param {
  name: string;
  in: string;
  description?: string;
  schema?: Record<string, unknown>;
  type?: string;
}
type Operation = { parameters?: Param[] };
type PathItem = { parameters?: Param[] } & Record<string, Operation | Param[] | undefined>;

const UPSTREAM: Record<string, string> = {
  pretty: "If 'true', then the output is pretty printed. Defaults to 'false' unless the user-agent indicates a browser or command-line HTTP tool (curl and wget).",
  namespace: 'object name and auth scope, such as for teams and projects',
  fieldSelector: 'A selector to restrict the list of returned objects by their fields. Defaults to everything.',
  labelSelector: 'A selector to restrict the list of returned objects by their labels. Defaults to everything.',
  watch: 'Watch for changes to the described resources and return them as a stream of add, update, and remove notifications. Specify resourceVersion.',
  timeoutSeconds: 'Timeout for the list/watch call. This limits the duration of the call, regardless of any activity or inactivity.',
  resourceVersion:
    'resourceVersion sets a constraint on what resource versions a request may be served from. See https://kubernetes.io/docs/reference/using-api/api-concepts/#resource-versions for details.\n\nDefaults to unset',
  resourceVersionMatch:
    'resourceVersionMatch determines how resourceVersion is applied to list calls. It is highly recommended that resourceVersionMatch be set for list calls where resourceVersion is set See https://kubernetes.io/docs/reference/using-api/api-concepts/#resource-versions for details.\n\nDefaults to unset',
  allowWatchBookmarks:
    'allowWatchBookmarks requests watch events with type "BOOKMARK". Servers that do not implement bookmarks may ignore this flag and bookmarks are sent at the server\'s discretion. Clients should not assume bookmarks are returned at any specific interval, nor may they assume the server will send any BOOKMARK event during a session. If this is not a watch, this field is ignored.',
  dryRun:
    'When present, indicates that modifications should not be persisted. An invalid or unrecognized dryRun directive will result in an error response and no further processing of the request. Valid values are: - All: all dry run stages will be processed',
  gracePeriodSeconds:
    'The duration in seconds before the object should be deleted. Value must be non-negative integer. The value zero indicates delete immediately. If this value is nil, the default grace period for the specified type will be used. Defaults to a per object value if not specified. zero means delete immediately.',
  propagationPolicy:
    "Whether and how garbage collection will be performed. Either this field or OrphanDependents may be set, but not both. The default policy is decided by the existing finalizer set in the metadata.finalizers and the resource-specific default policy. Acceptable values are: 'Orphan' - orphan the dependents; 'Background' - allow the garbage collector to delete the dependents in the background; 'Foreground' - a cascading policy that deletes all dependents in the foreground.",
  orphanDependents:
    'Deprecated: please use the PropagationPolicy, this field will be deprecated in 1.7. Should the dependent objects be orphaned. If true/false, the "orphan" finalizer will be added to/removed from the object\'s finalizers list. Either this field or PropagationPolicy may be set, but not both.',
  fieldManager:
    'fieldManager is a name associated with the actor or entity that is making these changes. The value must be less than or 128 characters long, and only contain printable characters, as defined by https://golang.org/pkg/unicode/#IsPrint.',
  force:
    'Force is going to "force" Apply requests. It means user will re-acquire conflicting fields owned by other people. Force flag must be unset for non-apply patch requests.',
};
const PATCH_FIELD_MANAGER = `${UPSTREAM.fieldManager} This field is required for apply requests (application/apply-patch) but optional for non-apply patch types (JsonPatch, MergePatch, StrategicMergePatch).`;

const byName = (params: Param[] | undefined): Record<string, Param> => Object.fromEntries((params ?? []).map((p) => [p.name, p]));

/** Every parameter named in `expected` has that description; the others are not checked here. */
function expectDescriptions(params: Param[] | undefined, expected: Record<string, string>): void {
  const got = byName(params);
  for (const [name, text] of Object.entries(expected)) expect(got[name]?.description, name).toBe(text);
}

const pick = (...names: string[]): Record<string, string> => Object.fromEntries(names.map((n) => [n, UPSTREAM[n]]));

async function documents(): Promise<{ v2: Record<string, PathItem>; v3: Record<string, PathItem> }> {
  const v2 = await api.send<{ paths: Record<string, PathItem> }>('GET', '/openapi/v2');
  const v3 = await api.send<{ paths: Record<string, PathItem> }>('GET', '/openapi/v3/api/v1');
  expect([v2.status, v3.status]).toEqual([200, 200]);
  return { v2: v2.body.paths, v3: v3.body.paths };
}

it('describes list, watch, delete, create, update and patch parameters in kube-apiserver words, in v2 and v3', async () => {
  const { v2, v3 } = await documents();
  for (const paths of [v2, v3]) {
    const collection = paths['/api/v1/namespaces/{namespace}/configmaps'];
    expectDescriptions(collection.parameters, pick('pretty', 'namespace'));
    const list = collection.get as Operation;
    expectDescriptions(list.parameters, pick('fieldSelector', 'labelSelector', 'watch', 'timeoutSeconds', 'resourceVersion', 'resourceVersionMatch', 'allowWatchBookmarks'));
    expectDescriptions((collection.post as Operation).parameters, pick('dryRun', 'fieldManager'));

    const item = paths['/api/v1/namespaces/{namespace}/configmaps/{name}'];
    expectDescriptions(item.parameters, { name: 'name of the ConfigMap', ...pick('namespace', 'pretty') });
    expectDescriptions((item.delete as Operation).parameters, pick('dryRun', 'gracePeriodSeconds', 'propagationPolicy', 'orphanDependents'));
    expectDescriptions((item.put as Operation).parameters, pick('dryRun', 'fieldManager'));
    // PatchOptions' fieldManager says more than CreateOptions' and UpdateOptions'.
    expectDescriptions((item.patch as Operation).parameters, { ...pick('force', 'dryRun'), fieldManager: PATCH_FIELD_MANAGER });

    const watch = paths['/api/v1/watch/namespaces/{namespace}/configmaps'];
    expectDescriptions(watch.parameters, pick('watch', 'fieldSelector', 'pretty'));

    expectDescriptions(paths['/api/v1/namespaces/{namespace}/pods/{name}/status'].parameters, { name: 'name of the Pod' });
  }
});

it('gives a deletecollection the list options without watch and allowWatchBookmarks, with the delete options', async () => {
  const { v2, v3 } = await documents();
  for (const paths of [v2, v3]) {
    const op = paths['/api/v1/namespaces/{namespace}/configmaps'].delete as Operation;
    const names = (op.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name);
    expect(names).toEqual([
      'continue', 'dryRun', 'fieldSelector', 'gracePeriodSeconds', 'ignoreStoreReadErrorWithClusterBreakingPotential', 'labelSelector', 'limit',
      'orphanDependents', 'propagationPolicy', 'resourceVersion', 'resourceVersionMatch', 'sendInitialEvents', 'timeoutSeconds',
    ]);
    expectDescriptions(op.parameters, pick('fieldSelector', 'gracePeriodSeconds', 'resourceVersion'));
  }
});
