// ValidateCustomResourceDefinition, its update and status variants (apiextensions-apiserver
// pkg/apis/apiextensions/validation), over the internal form kube validates (internal-view.ts),
// with kube's field paths, messages and order. The metadata rules come from the generated
// validator; here are the CRD's own: the name is `<plural>.<group>`, the spec, accepted names,
// stored versions, the API approval of protected groups and preserveUnknownFields.

import type { StatusCause } from '../../../errors/status-error.js';
import { isDNS1035Label, isDNS1123Subdomain } from '../../../machinery/formats.js';
import { deepEqual } from '../../../machinery/deep-equal.js';
import { annotationsOf, asList, asObject, asString, isPlainObject, metaOf, type KubeObject } from '../../../machinery/object.js';
import type { JsonObject } from '../../../machinery/json-values.js';
import { invalid, notSupported, required } from '../../../validation/field-errors.js';
import { isConditionTrue } from './conditions.js';
import { conversionCauses, hasAcceptedReviewVersionOrNone, type ConversionOptions } from './conversion-rules.js';
import { goStringSlice, goVersionsSyntax } from './go-syntax.js';
import { internalSpec, subresourcesOf, type InternalSpec } from './internal-view.js';
import { namesCauses } from './names.js';
import { schemaHas, schemaOf } from './schema-walk.js';
import { columnCauses, deprecationWarningCauses, selectableFieldsCauses, subresourcesCauses } from './version-rules.js';
import { caBundleCauses } from './webhook-config.js';

/**
 * What the schema modules check of one version's openAPIV3Schema (structural rules, defaults,
 * CEL), with kube's messages below `fldPath` (`spec.validation.openAPIV3Schema`); absent, only
 * the CRD's own rules run.
 */
export type SchemaChecks = (schema: JsonObject, fldPath: string, opts: { statusEnabled: boolean; suppressPerExpressionCost?: boolean }) => StatusCause[];

interface Options extends ConversionOptions {
  requireImmutableNames: boolean;
  requireOpenAPISchema: boolean;
  schemaChecks?: SchemaChecks;
  /** On update, the versions whose schema the update leaves as it was (findVersionsWithUnchangedSchemas). */
  unchangedSchemaVersions?: ReadonlySet<string>;
}

const API_APPROVAL_ANNOTATION = 'api-approved.kubernetes.io';
const ENHANCEMENT = 'https://github.com/kubernetes/enhancements/pull/1111';

const invalidSyntax = (field: string, rendered: string, detail: string): StatusCause => ({ reason: 'FieldValueInvalid', message: `Invalid value: ${rendered}: ${detail}`, field });

/**
 * validateCustomResourceDefinitionValidation: one schema (a version's or the lifted one, checked
 * under the first version's name). A schema an update leaves unchanged keeps rules whose own
 * estimated cost is over the limit (suppressExpressionCostForUnchangedSchema): they were accepted
 * once, perhaps under another estimator, and the objects stored under them stay writable.
 */
function validationCauses(validation: unknown, statusEnabled: boolean, at: string, version: string, opts: Options): StatusCause[] {
  const schema = isPlainObject(validation) ? validation.openAPIV3Schema : undefined;
  if (!isPlainObject(schema) || !opts.schemaChecks) return [];
  const suppressPerExpressionCost = opts.unchangedSchemaVersions?.has(version) ?? false;
  return opts.schemaChecks(schema, `${at}.openAPIV3Schema`, { statusEnabled, suppressPerExpressionCost });
}

/** findVersionsWithUnchangedSchemas: the versions of `spec` whose schema `oldSpec` had as it is. */
function versionsWithUnchangedSchemas(spec: JsonObject, oldSpec: JsonObject): Set<string> {
  const oldVersions = new Map(asList(oldSpec.versions).map((v) => [asString(asObject(v).name), asObject(v)]));
  const unchanged = new Set<string>();
  for (const v of asList(spec.versions)) {
    const name = asString(asObject(v).name);
    const old = oldVersions.get(name);
    if (old && deepEqual(asObject(v).schema ?? null, old.schema ?? null)) unchanged.add(name);
  }
  return unchanged;
}

function specCauses(spec: JsonObject, internal: InternalSpec, opts: Options): StatusCause[] {
  const causes: StatusCause[] = [];
  const group = asString(spec.group);
  if (!group) causes.push(required('spec.group'));
  else if (isDNS1123Subdomain(group).length) causes.push(invalid('spec.group', group, isDNS1123Subdomain(group).join(',')));
  else if (group.split('.').length < 2) causes.push(invalid('spec.group', group, 'should be a domain with at least one dot'));

  const scope = asString(spec.scope);
  if (!scope) causes.push(required('spec.scope'));
  else if (scope !== 'Cluster' && scope !== 'Namespaced') causes.push(notSupported('spec.scope', scope, ['Cluster', 'Namespaced']));

  const preserveUnknownFields = spec.preserveUnknownFields === true;
  const topSchema = schemaOf(internal.top.schema);
  if (!topSchema) {
    internal.versions.forEach((v, i) => {
      if (schemaOf(v.schema)) return;
      if (opts.requireOpenAPISchema) causes.push(required(`spec.versions[${i}].schema.openAPIV3Schema`, 'schemas are required'));
      else if (!preserveUnknownFields && v.served === true) causes.push(required(`spec.versions[${i}].schema.openAPIV3Schema`, 'because otherwise all fields are pruned'));
    });
  }
  const hasDefaults = [topSchema, ...internal.versions.map((v) => schemaOf(v.schema))].some((s) => s && schemaHas(s, (x) => x.default !== undefined && x.default !== null));
  if (hasDefaults && preserveUnknownFields) causes.push(invalid('spec.preserveUnknownFields', true, 'must be false in order to use defaults in the schema'));

  let storageVersions = 0;
  const seen = new Set<string>();
  let uniqueNames = true;
  internal.versions.forEach((v, i) => {
    const at = `spec.versions[${i}]`;
    const name = asString(v.name);
    if (v.storage === true) storageVersions++;
    if (seen.has(name)) uniqueNames = false;
    seen.add(name);
    const nameErrs = isDNS1035Label(name);
    if (nameErrs.length) causes.push(invalid(`${at}.name`, name, nameErrs.join(',')));
    const statusEnabled = isPlainObject(subresourcesOf(internal, v)?.status);
    causes.push(...deprecationWarningCauses(v, `${at}.deprecationWarning`));
    causes.push(...validationCauses(v.schema, statusEnabled, `${at}.schema`, name, opts));
    causes.push(...subresourcesCauses(v.subresources, `${at}.subresources`));
    asList(v.additionalPrinterColumns).forEach((c, j) => causes.push(...columnCauses(c, `${at}.additionalPrinterColumns[${j}]`)));
    if (asList(v.selectableFields).length > 0) {
      const schema = schemaOf(v.schema);
      if (!schema) causes.push(invalid(`${at}.selectableFields`, '', 'selectableFields may only be set when version.schema.openAPIV3Schema is not included'));
      else causes.push(...selectableFieldsCauses(v.selectableFields, schema, `${at}.selectableFields`));
    }
  });
  const versionsSyntax = (): string => goVersionsSyntax(internal.versionsNil ? undefined : internal.versions);
  if (!uniqueNames) causes.push(invalidSyntax('spec.versions', versionsSyntax(), 'must contain unique version names'));
  if (storageVersions !== 1) causes.push(invalidSyntax('spec.versions', versionsSyntax(), 'must have exactly one version marked as storage version'));
  // The internal spec.version is the first version's name, checked once more under that path.
  const firstName = asString(internal.versions[0]?.name);
  if (firstName && isDNS1035Label(firstName).length) causes.push(invalid('spec.version', firstName, isDNS1035Label(firstName).join(',')));

  const names = asObject(spec.names);
  for (const member of ['plural', 'singular', 'kind', 'listKind']) if (!asString(names[member])) causes.push(required(`spec.names.${member}`));
  causes.push(...namesCauses(spec.names, 'spec.names'));

  const anyStatus = [internal.top.subresources, ...internal.versions.map((v) => v.subresources)].some((s) => isPlainObject(s) && isPlainObject(s.status));
  causes.push(...validationCauses(internal.top.schema, anyStatus, 'spec.validation', asString(internal.versions[0]?.name), opts));
  causes.push(...subresourcesCauses(internal.top.subresources, 'spec.subresources'));
  asList(internal.top.additionalPrinterColumns).forEach((c, j) => causes.push(...columnCauses(c, `spec.additionalPrinterColumns[${j}]`)));
  if (asList(internal.top.selectableFields).length > 0) {
    if (internal.top.schema === undefined) causes.push(invalid('spec.selectableFields', '', 'selectableFields may only be set when validations.schema is included'));
    else causes.push(...selectableFieldsCauses(internal.top.selectableFields, topSchema ?? {}, 'spec.selectableFields'));
  }

  const conversion = isPlainObject(spec.conversion) ? spec.conversion : undefined;
  if (conversion && asString(conversion.strategy) !== 'None' && preserveUnknownFields) {
    causes.push(invalid('spec.conversion.strategy', asString(conversion.strategy), 'must be None if spec.preserveUnknownFields is true'));
  }
  causes.push(...conversionCauses(conversion, opts));
  return causes;
}

/** ValidateCustomResourceDefinitionStoredVersions. */
function storedVersionsCauses(obj: KubeObject): StatusCause[] {
  const stored = asObject(obj.status).storedVersions;
  const storedList = asList(stored).map(asString);
  const at = 'status.storedVersions';
  if (storedList.length === 0) return [invalidSyntax(at, goStringSlice(stored), 'must have at least one stored version')];
  const causes: StatusCause[] = [];
  const remaining = new Map<string, number>();
  storedList.forEach((v, i) => remaining.set(v, i));
  for (const v of asList(asObject(obj.spec).versions).map(asObject)) {
    const name = asString(v.name);
    const listed = remaining.has(name);
    if (v.storage === true && !listed) causes.push(invalidSyntax(at, goStringSlice(stored), `must have the storage version ${name}`));
    if (listed) remaining.delete(name);
  }
  // Go ranges over a map in no fixed order; ours is the list's.
  for (const [v, i] of remaining) {
    causes.push(
      invalid(
        `${at}[${i}]`,
        v,
        `missing from spec.versions; ${v} was previously a storage version, and must remain in spec.versions until a storage migration ensures no data remains persisted in ${v} and removes ${v} from status.storedVersions`,
      ),
    );
  }
  return causes;
}

type ApprovalState = 'invalid' | 'approved' | 'bypassed' | 'missing';

/** apihelpers.GetAPIApprovalState. */
function approvalState(annotations: Record<string, string>): [ApprovalState, string] {
  const annotation = annotations[API_APPROVAL_ANNOTATION] ?? '';
  if (!annotation) return ['missing', `protected groups must have approval annotation "${API_APPROVAL_ANNOTATION}", see ${ENHANCEMENT}`];
  if (annotation.startsWith('unapproved')) return ['bypassed', `not approved: ${JSON.stringify(annotation)}`];
  // url.ParseRequestURI: an absolute URL with a scheme and a host.
  if (/^[a-zA-Z][a-zA-Z0-9+.-]*:\/\/[^/?#\s]+/.test(annotation)) return ['approved', `approved in ${annotation}`];
  return ['invalid', `protected groups must have approval annotation "${API_APPROVAL_ANNOTATION}" with either a URL or a reason starting with "unapproved", see ${ENHANCEMENT}`];
}

/** validateAPIApproval: groups under k8s.io and kubernetes.io need the approval annotation. */
function apiApprovalCauses(obj: KubeObject, old: KubeObject | undefined): StatusCause[] {
  const group = asString(asObject(obj.spec).group);
  const isProtected = group === 'k8s.io' || group.endsWith('.k8s.io') || group === 'kubernetes.io' || group.endsWith('.kubernetes.io');
  if (!isProtected) return [];
  const [state, reason] = approvalState(annotationsOf(obj));
  // An update that keeps the approval state is never refused for it.
  if (old && approvalState(annotationsOf(old))[0] === state) return [];
  const at = `metadata.annotations[${API_APPROVAL_ANNOTATION}]`;
  if (state === 'missing') return [required(at, reason)];
  if (state === 'invalid') return [invalid(at, annotationsOf(obj)[API_APPROVAL_ANNOTATION] ?? '', reason)];
  return [];
}

/** validatePreserveUnknownFields: v1 never turns it on (stored definitions that have it keep it). */
function preserveUnknownFieldsCauses(obj: KubeObject, old: KubeObject | undefined): StatusCause[] {
  if (old && asObject(old.spec).preserveUnknownFields === true) return [];
  if (asObject(obj.spec).preserveUnknownFields !== true) return [];
  return [invalid('spec.preserveUnknownFields', true, 'cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead')];
}

/** The name must be `<plural>.<group>` (ValidateObjectMeta's name function for CRDs); generateName is held to it too. */
function nameCauses(obj: KubeObject): StatusCause[] {
  const spec = asObject(obj.spec);
  const want = `${asString(asObject(spec.names).plural)}.${asString(spec.group)}`;
  const meta = metaOf(obj);
  const detail = 'must be spec.names.plural+"."+spec.group';
  const causes: StatusCause[] = [];
  if (meta.generateName && meta.generateName !== want) causes.push(invalid('metadata.generateName', meta.generateName, detail));
  if ((meta.name ?? '') !== want) causes.push(invalid('metadata.name', meta.name ?? '', detail));
  return causes;
}

/**
 * The CRD's own causes placed after the generated validator's metadata causes, as kube reports
 * them. A member of the wrong JSON type is a decoding error in kube, before any rule runs: then
 * those causes alone are the answer (`own` is computed only when needed).
 */
export function withNameCauses(generated: StatusCause[], obj: KubeObject, own: () => StatusCause[]): StatusCause[] {
  if (generated.some((c) => c.reason === 'FieldValueTypeInvalid')) return generated;
  const isMeta = (c: StatusCause): boolean => (c.field ?? '').startsWith('metadata.');
  let split = 0;
  while (split < generated.length && isMeta(generated[split])) split++;
  return [...generated.slice(0, split), ...nameCauses(obj), ...generated.slice(split), ...own()];
}

function statusCauses(obj: KubeObject): StatusCause[] {
  return namesCauses(asObject(obj.status).acceptedNames, 'status.acceptedNames');
}

export function crdCauses(obj: KubeObject, schemaChecks?: SchemaChecks): StatusCause[] {
  const spec = asObject(obj.spec);
  const opts: Options = { requireRecognizedConversionReviewVersion: true, requireImmutableNames: false, requireOpenAPISchema: true, validateCABundle: () => [], schemaChecks };
  return [
    ...specCauses(spec, internalSpec(spec), opts),
    ...statusCauses(obj),
    ...storedVersionsCauses(obj),
    ...apiApprovalCauses(obj, undefined),
    ...preserveUnknownFieldsCauses(obj, undefined),
  ];
}

/** Whether every version of the stored definition has a schema (else updates may keep lacking one). */
function allVersionsHaveSchemas(old: KubeObject): boolean {
  return asList(asObject(old.spec).versions).every((v) => schemaOf(asObject(v).schema) !== undefined);
}

/** allowInvalidCABundle: before the definition is Established, or while the stored bundle is invalid itself. */
function allowsInvalidCABundle(old: KubeObject): boolean {
  if (!isConditionTrue(old, 'Established')) return true;
  const caBundle = asString(asObject(asObject(asObject(asObject(old.spec).conversion).webhook).clientConfig).caBundle);
  if (!caBundle) return false;
  return caBundleCauses(caBundle, 'caBundle').length > 0;
}

export function crdUpdateCauses(obj: KubeObject, old: KubeObject, schemaChecks?: SchemaChecks): StatusCause[] {
  const spec = asObject(obj.spec);
  const oldSpec = asObject(old.spec);
  const oldWebhook = asObject(asObject(oldSpec.conversion).webhook);
  const opts: Options = {
    requireRecognizedConversionReviewVersion: !isPlainObject(oldSpec.conversion) || hasAcceptedReviewVersionOrNone(oldWebhook.conversionReviewVersions),
    requireImmutableNames: isConditionTrue(old, 'Established'),
    requireOpenAPISchema: allVersionsHaveSchemas(old),
    validateCABundle: allowsInvalidCABundle(old) ? () => [] : caBundleCauses,
    schemaChecks,
    unchangedSchemaVersions: versionsWithUnchangedSchemas(spec, oldSpec),
  };
  const causes = specCauses(spec, internalSpec(spec), opts);
  const immutable = (path: string, now: unknown, before: unknown): void => {
    if (now !== before) causes.push(invalid(path, now ?? '', 'field is immutable'));
  };
  if (opts.requireImmutableNames) {
    immutable('spec.scope', asString(spec.scope), asString(oldSpec.scope));
    immutable('spec.names.kind', asString(asObject(spec.names).kind), asString(asObject(oldSpec.names).kind));
  }
  immutable('spec.group', asString(spec.group), asString(oldSpec.group));
  immutable('spec.names.plural', asString(asObject(spec.names).plural), asString(asObject(oldSpec.names).plural));
  return [...causes, ...statusCauses(obj), ...storedVersionsCauses(obj), ...apiApprovalCauses(obj, old), ...preserveUnknownFieldsCauses(obj, old)];
}

/** ValidateUpdateCustomResourceDefinitionStatus: the accepted names (metadata comes from the generated validator). */
export function crdStatusUpdateCauses(obj: KubeObject): StatusCause[] {
  return statusCauses(obj);
}
