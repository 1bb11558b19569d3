// The ResourceDefinitions a CustomResourceDefinition serves, one per served version, as kube's
// crdHandler builds its per-version serving info: the accepted names, the scope, kube's verbs,
// the status subresource, printer columns, objects under `<group>/<plural>` (kube's etcd layout)
// stored in the storage version (conversion None: only apiVersion differs between versions),
// no protobuf, and a validator compiled from the version's schema once per CRD change.

import { createHash } from 'node:crypto';
import type { KubeObject } from '../../machinery/object.js';
import { customResourcePrinterColumns } from '../crd-printer-columns.js';
import type { CustomResourceSubresourceScale } from '../crd-scale.js';
import type { ResourceDefinition, SubresourceDefinition, Verb } from '../definition.js';
import { isConditionTrue, servedNames, specOf, storageVersionOf, type CRDVersion } from './crd.js';
import { webhookConversionOf } from './conversion-webhook.js';
import { customResourceValidator, type RuleChecks, type SchemaChecks } from './validator.js';

/** The strategy module of custom resources (strategies/index.ts). */
export const CUSTOM_RESOURCE_STRATEGY = 'customresource';

/** kube's verbs of a custom resource, in the order its discovery lists them. */
export const CUSTOM_RESOURCE_VERBS: Verb[] = ['delete', 'deletecollection', 'get', 'list', 'patch', 'create', 'update', 'watch'];

/** Compiles one version's openAPIV3Schema for serving (crd-schema and crd-cel); absent: no schema checks. */
export interface SchemaCompiler {
  (schema: Record<string, unknown>): { schema?: SchemaChecks; rules?: RuleChecks };
}

/** discovery.StorageVersionHash: the first 8 bytes of sha256("<group>/<version>/<kind>"), base64. */
export function storageVersionHash(group: string, version: string, kind: string): string {
  return createHash('sha256').update(`${group}/${version}/${kind}`).digest().subarray(0, 8).toString('base64');
}

/** kube's OpenAPI definition name of a custom kind: the group reversed, then version and kind (`com.example.stable.v1.CronTab`). */
export function openAPIDefinitionName(group: string, version: string, kind: string): string {
  return `${group.split('.').reverse().join('.')}.${version}.${kind}`;
}

/** The definitions of every served version of `crd`; `compile` builds each version's checks. */
export function customResourceDefinitions(crd: KubeObject, compile?: SchemaCompiler): ResourceDefinition[] {
  const spec = specOf(crd);
  const storage = storageVersionOf(crd);
  if (!spec.group || !storage) return [];
  const names = servedNames(crd);
  const namespaced = spec.scope !== 'Cluster';
  const hash = storageVersionHash(spec.group, storage, names.kind);
  const storedApiVersion = `${spec.group}/${storage}`;
  // kube keeps serving a terminating CRD's instances for reads and deletes, refusing new ones.
  const terminating = isConditionTrue(crd, 'Terminating');
  // One webhook client for every version; the storage version itself needs no conversion.
  const webhook = webhookConversionOf(crd);
  const replicasPaths: Record<string, string | null> = {};
  for (const v of spec.versions ?? []) {
    const scale = v.subresources?.scale as CustomResourceSubresourceScale | undefined;
    replicasPaths[`${spec.group}/${v.name}`] = scale?.specReplicasPath ?? null;
  }
  return (spec.versions ?? [])
    .filter((v) => v.served)
    .map((version): ResourceDefinition => {
      const subresources: SubresourceDefinition[] = [];
      if (version.subresources?.status) subresources.push({ name: 'status', kind: names.kind, verbs: ['get', 'patch', 'update'] });
      const scale = version.subresources?.scale as CustomResourceSubresourceScale | undefined;
      if (scale) subresources.push({ name: 'scale', kind: 'Scale', group: 'autoscaling', version: 'v1', handler: 'scale', verbs: ['get', 'patch', 'update'], scale, replicasPaths });
      const openAPISchema = version.schema?.openAPIV3Schema;
      const compiled = openAPISchema && compile ? compile(openAPISchema) : {};
      return {
        group: spec.group,
        version: version.name,
        kind: names.kind,
        listKind: names.listKind ?? `${names.kind}List`,
        plural: names.plural,
        singular: names.singular ?? names.kind.toLowerCase(),
        namespaced,
        verbs: CUSTOM_RESOURCE_VERBS,
        shortNames: names.shortNames ?? [],
        categories: names.categories ?? [],
        stability: 'stable',
        subresources,
        printerColumns: customResourcePrinterColumns(version.additionalPrinterColumns),
        nameFormat: 'dns1123Subdomain',
        storageVersionHash: hash,
        protobufType: '',
        protobufListType: '',
        openAPIName: openAPIDefinitionName(spec.group, version.name, names.kind),
        tracksGeneration: true,
        statusField: 'status',
        strategy: CUSTOM_RESOURCE_STRATEGY,
        storagePrefix: `${spec.group}/${names.plural}`,
        // Every version reads and writes the same objects, kept in the storage version's form.
        storedAs: { apiVersion: storedApiVersion, fieldRenames: {} },
        validator: customResourceValidator({ group: spec.group, version: version.name, kind: names.kind, namespaced, ...compiled }),
        strategicMergePatch: false,
        unstructured: true,
        ...(openAPISchema ? { openAPISchema } : {}),
        ...(version.selectableFields?.length ? { selectableFields: version.selectableFields } : {}),
        ...(webhook && version.name !== storage ? { conversion: { storageApiVersion: storedApiVersion, convert: webhook } } : {}),
        ...(terminating ? { createRefusal: 'create not allowed while custom resource definition is terminating' } : {}),
        ...(version.deprecated ? { deprecationWarning: version.deprecationWarning ?? `${spec.group}/${version.name} ${names.kind} is deprecated` } : {}),
      };
    });
}
