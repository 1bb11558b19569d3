// SubjectAccessReview, SelfSubjectAccessReview and LocalSubjectAccessReview: the posted spec
// becomes authorizer attributes, the server's authorizer chain judges them, and the posted object
// comes back with status filled in. The checks and their texts are those of kube-apiserver's
// review REST and pkg/apis/authorization/validation; the attributes are built as its
// authorizationutil builds them (an empty version means every version).

import type { Attributes, AuthorizationResult } from '../../auth/authorizer.js';
import { newUserInfo, type UserInfo } from '../../auth/user.js';
import { badRequest, invalid, type StatusCause } from '../../errors/status-error.js';
import * as field from '../../validation/field-errors.js';
import { isPlainObject, type KubeObject } from '../../machinery/object.js';
import { parseLabelSelector } from '../../machinery/selectors/label-selector.js';
import { parseFieldSelectorTerms } from '../../machinery/selectors/field-selector.js';
import { goNonResourceAttributes, goObjectMeta } from './go-syntax.js';
import { requireAccess, type VirtualRequest } from './index.js';
import { setMember } from '../../machinery/own-member.js';

type Obj = Record<string, unknown>;

const GROUP = 'authorization.k8s.io';

const asObj = (v: unknown): Obj | undefined => (isPlainObject(v) ? v : undefined);
const asStr = (v: unknown): string => (typeof v === 'string' ? v : '');
const asStrings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string') : []);

function invalidStruct(path: string, rendered: string, detail: string): StatusCause {
  return { reason: 'FieldValueInvalid', message: `Invalid value: ${rendered}: ${detail}`, field: path };
}

/** The selector rules of validateResourceAttributes, for one of fieldSelector and labelSelector. */
function selectorCauses(selector: unknown, path: string, field_: 'field' | 'label'): StatusCause[] {
  const sel = asObj(selector);
  if (!sel) return [];
  const causes: StatusCause[] = [];
  const raw = asStr(sel.rawSelector);
  const requirements = Array.isArray(sel.requirements) ? sel.requirements : [];
  if (raw && requirements.length > 0) causes.push(field.invalid(`${path}.rawSelector`, raw, 'may not specified at the same time as requirements'));
  if (!raw && requirements.length === 0) causes.push(field.required(`${path}.requirements`, `when ${path} is specified, requirements or rawSelector is required`));
  // Label requirements are checked by their type's own rules; field requirements only here.
  if (field_ === 'field') {
    requirements.forEach((r, i) => {
      const req = asObj(r) ?? {};
      const at = `${path}.requirements[${i}]`;
      if (!asStr(req.key)) causes.push(field.required(`${at}.key`, 'must be specified'));
      const op = asStr(req.operator);
      const values = asStrings(req.values);
      if ((op === 'In' || op === 'NotIn') && values.length === 0) {
        causes.push(field.required(`${at}.values`, "must be specified when `operator` is 'In' or 'NotIn'"));
      }
      if ((op === 'Exists' || op === 'DoesNotExist') && values.length > 0) {
        causes.push(field.forbidden(`${at}.values`, "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
      }
    });
  }
  return causes;
}

function resourceAttributesCauses(ra: Obj | undefined): StatusCause[] {
  if (!ra) return [];
  const path = 'spec.resourceAttributes';
  return [...selectorCauses(ra.fieldSelector, `${path}.fieldSelector`, 'field'), ...selectorCauses(ra.labelSelector, `${path}.labelSelector`, 'label')];
}

/** ValidateSubjectAccessReviewSpec, or its SelfSubjectAccessReview twin without the subject. */
function specCauses(spec: Obj, subjectRequired: boolean): StatusCause[] {
  const causes: StatusCause[] = [];
  const ra = asObj(spec.resourceAttributes);
  const nra = asObj(spec.nonResourceAttributes);
  if (ra && nra) causes.push(invalidStruct('spec.nonResourceAttributes', goNonResourceAttributes(nra), 'cannot be specified in combination with resourceAttributes'));
  // Go prints the absent nonResourceAttributes pointer as the string "null".
  if (!ra && !nra) causes.push(field.invalid('spec.resourceAttributes', 'null', 'exactly one of nonResourceAttributes or resourceAttributes must be specified'));
  if (subjectRequired && !asStr(spec.user) && asStrings(spec.groups).length === 0) {
    causes.push(field.invalid('spec.user', asStr(spec.user), 'at least one of user or group must be specified'));
  }
  causes.push(...resourceAttributesCauses(ra));
  return causes;
}

/** Metadata other than managedFields (and, where allowed, namespace) makes the review invalid. */
function metadataSet(metadata: unknown, except: string[]): boolean {
  const meta = asObj(metadata);
  if (!meta) return false;
  return Object.entries(meta).some(([k, v]) => !except.includes(k) && v !== null && v !== undefined && !isZero(v));
}

/** Zero as apimachinery's semantic equality sees it: empty and nil lists and maps are equal. */
function isZero(v: unknown): boolean {
  if (v === '' || v === 0 || v === false) return true;
  if (Array.isArray(v)) return v.length === 0;
  return isPlainObject(v) && Object.keys(v).length === 0;
}

function userFromSpec(spec: Obj): UserInfo {
  const extra: Record<string, string[]> = {};
  for (const [k, v] of Object.entries(asObj(spec.extra) ?? {})) setMember(extra, k, asStrings(v));
  return newUserInfo(asStr(spec.user), { uid: asStr(spec.uid), groups: asStrings(spec.groups), extra });
}

/**
 * The field selector a review asks about, in the request's text form: the raw selector, or the
 * requirements fieldSelectorAsSelector can use (In and NotIn with one value, as = and !=).
 */
function reviewedFieldSelector(selector: unknown): { fieldSelector?: string } {
  const sel = asObj(selector);
  if (!sel) return {};
  const raw = asStr(sel.rawSelector);
  if (raw) return { fieldSelector: raw };
  const terms: string[] = [];
  for (const r of Array.isArray(sel.requirements) ? sel.requirements.map((x) => asObj(x) ?? {}) : []) {
    const values = asStrings(r.values);
    // A key that is no plain field name could smuggle in terms; kube's parsed requirement cannot.
    if (values.length !== 1 || /[\\,=!\s]/.test(asStr(r.key))) continue;
    // fields.EscapeValue, so a value cannot smuggle in a term of its own.
    const value = values[0]!.replace(/[\\,=]/g, (ch) => `\\${ch}`);
    if (r.operator === 'In') terms.push(`${asStr(r.key)}=${value}`);
    else if (r.operator === 'NotIn') terms.push(`${asStr(r.key)}!=${value}`);
  }
  return terms.length > 0 ? { fieldSelector: terms.join(',') } : {};
}

export function attributesFromSpec(user: UserInfo, spec: Obj): Attributes {
  const ra = asObj(spec.resourceAttributes);
  if (ra) {
    return {
      user,
      verb: asStr(ra.verb),
      isResourceRequest: true,
      path: '',
      namespace: asStr(ra.namespace),
      apiGroup: asStr(ra.group),
      apiVersion: asStr(ra.version) || '*',
      resource: asStr(ra.resource),
      subresource: asStr(ra.subresource),
      name: asStr(ra.name),
      ...reviewedFieldSelector(ra.fieldSelector),
    };
  }
  const nra = asObj(spec.nonResourceAttributes) ?? {};
  return { user, verb: asStr(nra.verb), isResourceRequest: false, path: asStr(nra.path), namespace: '', apiGroup: '', apiVersion: '', resource: '', subresource: '', name: '' };
}

/** Whether a selector the authorizers would be given could not be used (in full or at all). */
function selectorIgnored(selector: unknown, kind: 'field' | 'label'): 'ignored' | 'partially ignored' | undefined {
  const sel = asObj(selector);
  if (!sel) return undefined;
  const requirements = Array.isArray(sel.requirements) ? sel.requirements.map((r) => asObj(r) ?? {}) : [];
  if (requirements.length > 0) {
    if (kind === 'label') return undefined;
    // fieldSelectorAsSelector: only In and NotIn with exactly one value become requirements.
    const usable = requirements.filter((r) => (r.operator === 'In' || r.operator === 'NotIn') && asStrings(r.values).length === 1);
    if (usable.length === requirements.length) return undefined;
    return usable.length > 0 ? 'partially ignored' : 'ignored';
  }
  const raw = asStr(sel.rawSelector);
  if (!raw) return undefined;
  try {
    if (kind === 'field') parseFieldSelectorTerms(raw);
    else parseLabelSelector(raw);
    return undefined;
  } catch {
    return 'ignored';
  }
}

/** BuildEvaluationError: the authorizers' error, then what became of the selectors. */
function evaluationError(result: AuthorizationResult, spec: Obj): string {
  const errors: string[] = [];
  if (result.error) errors.push(result.error);
  const ra = asObj(spec.resourceAttributes);
  if (ra) {
    const fieldIgnored = selectorIgnored(ra.fieldSelector, 'field');
    if (fieldIgnored) errors.push(`spec.resourceAttributes.fieldSelector ${fieldIgnored} due to parse error`);
    const labelIgnored = selectorIgnored(ra.labelSelector, 'label');
    if (labelIgnored) errors.push(`spec.resourceAttributes.labelSelector ${labelIgnored} due to parse error`);
  }
  return errors.join('; ');
}

/** The posted review with its answer: Go writes allowed always, the rest only when set. */
async function answer(obj: KubeObject, spec: Obj, user: UserInfo, request: VirtualRequest): Promise<KubeObject> {
  const result = await requireAccess(request).authorizer.authorize(attributesFromSpec(user, spec));
  const status: Obj = { allowed: result.decision === 'allow' };
  if (result.decision === 'deny') status.denied = true;
  if (result.reason) status.reason = result.reason;
  const error = evaluationError(result, spec);
  if (error) status.evaluationError = error;
  return { apiVersion: obj.apiVersion, kind: obj.kind, metadata: { creationTimestamp: null, ...(asObj(obj.metadata) ?? {}) }, spec, status };
}

/** The posted spec; without AuthorizeWithSelectors its selectors are cleared first, as kube's REST clears them. */
function specOf(obj: KubeObject, request: VirtualRequest): Obj {
  const spec = asObj(obj.spec) ?? {};
  const ra = asObj(spec.resourceAttributes);
  if (request.authorizeWithSelectors || !ra || (ra.fieldSelector === undefined && ra.labelSelector === undefined)) return spec;
  const { fieldSelector: _field, labelSelector: _label, ...rest } = ra;
  return { ...spec, resourceAttributes: rest };
}

export async function subjectAccessReview(obj: KubeObject, request: VirtualRequest): Promise<KubeObject> {
  const spec = specOf(obj, request);
  const causes = specCauses(spec, true);
  if (metadataSet(obj.metadata, ['managedFields'])) causes.push(invalidStruct('metadata', goObjectMeta(obj.metadata), 'must be empty'));
  if (causes.length) throw invalid(GROUP, 'SubjectAccessReview', '', causes);
  return answer(obj, spec, userFromSpec(spec), request);
}

export async function selfSubjectAccessReview(obj: KubeObject, request: VirtualRequest): Promise<KubeObject> {
  const spec = specOf(obj, request);
  const causes = specCauses(spec, false);
  if (metadataSet(obj.metadata, ['managedFields'])) causes.push(invalidStruct('metadata', goObjectMeta(obj.metadata), 'must be empty'));
  if (causes.length) throw invalid(GROUP, 'SelfSubjectAccessReview', '', causes);
  return answer(obj, spec, request.user, request);
}

export async function localSubjectAccessReview(obj: KubeObject, request: VirtualRequest): Promise<KubeObject> {
  const spec = specOf(obj, request);
  const metaNamespace = asStr(asObj(obj.metadata)?.namespace);
  const causes = specCauses(spec, true);
  if (metadataSet(obj.metadata, ['managedFields', 'namespace'])) {
    causes.push(invalidStruct('metadata', goObjectMeta(obj.metadata), 'must be empty except for namespace'));
  }
  const ra = asObj(spec.resourceAttributes);
  if (ra && asStr(ra.namespace) !== metaNamespace) causes.push(field.invalid('spec.resourceAttributes.namespace', asStr(ra.namespace), 'must match metadata.namespace'));
  const nra = asObj(spec.nonResourceAttributes);
  if (nra) causes.push(invalidStruct('spec.nonResourceAttributes', goNonResourceAttributes(nra), 'disallowed on this kind of request'));
  if (causes.length) throw invalid(GROUP, 'LocalSubjectAccessReview', '', causes);
  if (!request.namespace) throw badRequest(`namespace is required on this type: ${request.namespace}`);
  if (request.namespace !== metaNamespace) throw badRequest(`spec.resourceAttributes.namespace must match namespace: ${request.namespace}`);
  return answer(obj, spec, userFromSpec(spec), request);
}
