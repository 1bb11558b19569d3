// --authorization-config: the AuthorizationConfiguration file (apiserver.config.k8s.io v1, v1beta1,
// v1alpha1), decoded and validated as kube-apiserver's LoadAndValidateData does, with its
// messages: a field error list first (k8s.io/apiserver/pkg/apis/apiserver/validation), then
// kube-apiserver's own check that built-in authorizers carry their lowercased type as name.
// The legacy flags (--authorization-mode, --authorization-webhook-*) are turned into the same
// structure, as kube-apiserver's buildAuthorizationConfiguration does, so one builder serves both.

import { statSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import { parse as parseYaml } from 'yaml';
import type { StatusCause } from '../errors/status-error.js';
import { formatGoDuration } from '../machinery/duration.js';
import { parseGoDuration } from '../machinery/duration.js';
import * as fe from '../validation/field-errors.js';
import { isDNS1123Subdomain } from '../machinery/formats.js';
import { goPathError } from '../machinery/go-file-error.js';
import { aggregateMessage } from './aggregate.js';
import { AUTHORIZATION_MODE_CHOICES, type AuthorizationMode } from './authorization-modes.js';
import { compileMatchConditions } from './webhook-match-conditions.js';

export const AUTHORIZATION_CONFIG_VERSIONS = ['v1', 'v1beta1', 'v1alpha1'] as const;

export interface WebhookConfiguration {
  authorizedTTLMs: number;
  unauthorizedTTLMs: number;
  timeoutMs: number;
  subjectAccessReviewVersion: string;
  matchConditionSubjectAccessReviewVersion: string;
  failurePolicy: string;
  connectionInfo: { type: string; kubeConfigFile?: string };
  matchConditions: string[];
}

export interface AuthorizerConfiguration {
  type: string;
  name: string;
  webhook?: WebhookConfiguration;
}

export interface AuthorizationConfiguration {
  authorizers: AuthorizerConfiguration[];
}

/** The webhook's defaults in every version (SetDefaults_WebhookConfiguration). */
const DEFAULT_AUTHORIZED_TTL_MS = 5 * 60_000;
const DEFAULT_UNAUTHORIZED_TTL_MS = 30_000;

const goDuration = (ms: number): string => formatGoDuration(BigInt(Math.round(ms * 1e6)));

/** What Go's encoding/json calls a JSON value's kind in its unmarshal errors. */
function jsonKind(v: unknown): string {
  if (Array.isArray(v)) return 'array';
  if (v === null) return 'null';
  if (typeof v === 'object') return 'object';
  if (typeof v === 'boolean') return 'bool';
  return typeof v;
}

class DecodeError extends Error {}

/** The fields each level knows; the loader's codecs are strict, so any other is an error. */
const KNOWN_FIELDS = {
  top: ['apiVersion', 'kind', 'authorizers'],
  authorizer: ['type', 'name', 'webhook'],
  webhook: ['authorizedTTL', 'unauthorizedTTL', 'timeout', 'subjectAccessReviewVersion', 'matchConditionSubjectAccessReviewVersion', 'failurePolicy', 'connectionInfo', 'matchConditions'],
  connectionInfo: ['type', 'kubeConfigFile'],
  matchCondition: ['expression'],
};

/** Every field the strict decoder would reject, as `unknown field "authorizers[0].webhook.timout"`. */
function unknownFields(doc: Record<string, unknown>): string[] {
  const found: string[] = [];
  const check = (obj: unknown, known: string[], at: string) => {
    if (!obj || typeof obj !== 'object' || Array.isArray(obj)) return;
    for (const key of Object.keys(obj)) if (!known.includes(key)) found.push(`unknown field "${at}${key}"`);
  };
  check(doc, KNOWN_FIELDS.top, '');
  if (!Array.isArray(doc.authorizers)) return found;
  doc.authorizers.forEach((a: unknown, i) => {
    const at = `authorizers[${i}].`;
    check(a, KNOWN_FIELDS.authorizer, at);
    const webhook = (a as Record<string, unknown> | null)?.webhook as Record<string, unknown> | undefined;
    if (!webhook || typeof webhook !== 'object') return;
    check(webhook, KNOWN_FIELDS.webhook, `${at}webhook.`);
    check(webhook.connectionInfo, KNOWN_FIELDS.connectionInfo, `${at}webhook.connectionInfo.`);
    if (Array.isArray(webhook.matchConditions)) webhook.matchConditions.forEach((c, j) => check(c, KNOWN_FIELDS.matchCondition, `${at}webhook.matchConditions[${j}].`));
  });
  return found;
}

function unmarshalError(value: unknown, field: string, goType: string): DecodeError {
  return new DecodeError(`json: cannot unmarshal ${jsonKind(value)} into Go struct field ${field} of type ${goType}`);
}

function str(obj: Record<string, unknown>, key: string, where: string): string {
  const v = obj[key];
  if (v === undefined || v === null) return '';
  if (typeof v !== 'string') throw unmarshalError(v, `${where}.${key}`, 'string');
  return v;
}

/** metav1.Duration: a Go duration string; absent or null is zero (then defaulted). */
function duration(obj: Record<string, unknown>, key: string, where: string): number {
  const v = obj[key];
  if (v === undefined || v === null) return 0;
  if (typeof v !== 'string') throw unmarshalError(v, `${where}.${key}`, 'string');
  try {
    return parseGoDuration(v);
  } catch (err) {
    throw new DecodeError((err as Error).message);
  }
}

function record(v: unknown, field: string, goType: string): Record<string, unknown> {
  if (v === undefined || v === null) return {};
  if (typeof v !== 'object' || Array.isArray(v)) throw unmarshalError(v, field, goType);
  return v as Record<string, unknown>;
}

function list(v: unknown, field: string, goType: string): unknown[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw unmarshalError(v, field, goType);
  return v;
}

function decodeWebhook(raw: unknown, version: string): WebhookConfiguration {
  const w = record(raw, 'AuthorizerConfiguration.webhook', `${version}.WebhookConfiguration`);
  const where = 'WebhookConfiguration';
  const ci = record(w.connectionInfo, `${where}.connectionInfo`, `${version}.WebhookConnectionInfo`);
  const kubeConfigFile = ci.kubeConfigFile;
  if (kubeConfigFile !== undefined && kubeConfigFile !== null && typeof kubeConfigFile !== 'string') {
    throw unmarshalError(kubeConfigFile, 'WebhookConnectionInfo.kubeConfigFile', 'string');
  }
  const conditions = list(w.matchConditions, `${where}.matchConditions`, `[]${version}.WebhookMatchCondition`).map((c) =>
    str(record(c, `${where}.matchConditions`, `${version}.WebhookMatchCondition`), 'expression', 'WebhookMatchCondition'),
  );
  return {
    authorizedTTLMs: duration(w, 'authorizedTTL', where) || DEFAULT_AUTHORIZED_TTL_MS,
    unauthorizedTTLMs: duration(w, 'unauthorizedTTL', where) || DEFAULT_UNAUTHORIZED_TTL_MS,
    timeoutMs: duration(w, 'timeout', where),
    subjectAccessReviewVersion: str(w, 'subjectAccessReviewVersion', where),
    matchConditionSubjectAccessReviewVersion: str(w, 'matchConditionSubjectAccessReviewVersion', where),
    failurePolicy: str(w, 'failurePolicy', where),
    connectionInfo: { type: str(ci, 'type', 'WebhookConnectionInfo'), ...(typeof kubeConfigFile === 'string' ? { kubeConfigFile } : {}) },
    matchConditions: conditions,
  };
}

/**
 * Decodes the file's bytes (YAML or JSON) as the loader's strict universal decoder does: apiVersion
 * and kind must name a known version of AuthorizationConfiguration, and no field may be unknown.
 */
export function decodeAuthorizationConfiguration(text: string): AuthorizationConfiguration {
  if (text.trim() === '') return { authorizers: [] };
  let doc: unknown;
  try {
    doc = parseYaml(text);
  } catch (err) {
    throw new DecodeError(`error converting YAML to JSON: ${(err as Error).message.split('\n')[0]}`);
  }
  if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) {
    throw new DecodeError(`couldn't get version/kind; json parse error: json: cannot unmarshal ${jsonKind(doc)} into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }`);
  }
  const obj = doc as Record<string, unknown>;
  const json = JSON.stringify(obj);
  if (typeof obj.kind !== 'string' || obj.kind === '') throw new DecodeError(`Object 'Kind' is missing in '${json}'`);
  if (typeof obj.apiVersion !== 'string' || obj.apiVersion === '') throw new DecodeError(`Object 'apiVersion' is missing in '${json}'`);
  const group = 'apiserver.config.k8s.io';
  const [g, v] = obj.apiVersion.includes('/') ? obj.apiVersion.split('/', 2) : ['', obj.apiVersion];
  if (g !== group || !(AUTHORIZATION_CONFIG_VERSIONS as readonly string[]).includes(v) || obj.kind !== 'AuthorizationConfiguration') {
    throw new DecodeError(`no kind ${JSON.stringify(obj.kind)} is registered for version ${JSON.stringify(obj.apiVersion)} in scheme "k8s.io/apiserver/pkg/apis/apiserver/load/load.go:32"`);
  }
  const authorizers = list(obj.authorizers, 'AuthorizationConfiguration.authorizers', `[]${v}.AuthorizerConfiguration`).map((raw) => {
    const a = record(raw, 'AuthorizationConfiguration.authorizers', `${v}.AuthorizerConfiguration`);
    const out: AuthorizerConfiguration = { type: str(a, 'type', 'AuthorizerConfiguration'), name: str(a, 'name', 'AuthorizerConfiguration') };
    if (a.webhook !== undefined && a.webhook !== null) out.webhook = decodeWebhook(a.webhook, v);
    return out;
  });
  const unknown = unknownFields(obj);
  if (unknown.length > 0) throw new DecodeError(`strict decoding error: ${unknown.join(', ')}`);
  return { authorizers };
}

function validateWebhook(path: string, w: WebhookConfiguration): StatusCause[] {
  const causes: StatusCause[] = [];
  // kube-apiserver reports the webhook's fields directly under the authorizer's path.
  const at = (field: string) => `${path}.${field}`;
  if (w.timeoutMs === 0) causes.push(fe.required(at('timeout')));
  else if (w.timeoutMs > 30_000 || w.timeoutMs < 0) causes.push(fe.invalid(at('timeout'), goDuration(w.timeoutMs), 'must be > 0s and <= 30s'));
  if (w.authorizedTTLMs < 0) causes.push(fe.invalid(at('authorizedTTL'), goDuration(w.authorizedTTLMs), 'must be > 0s'));
  if (w.unauthorizedTTLMs < 0) causes.push(fe.invalid(at('unauthorizedTTL'), goDuration(w.unauthorizedTTLMs), 'must be > 0s'));
  if (w.subjectAccessReviewVersion === '') causes.push(fe.required(at('subjectAccessReviewVersion')));
  else if (w.subjectAccessReviewVersion !== 'v1' && w.subjectAccessReviewVersion !== 'v1beta1') {
    causes.push(fe.notSupported(at('subjectAccessReviewVersion'), w.subjectAccessReviewVersion, ['v1', 'v1beta1']));
  }
  if (w.matchConditionSubjectAccessReviewVersion === '') {
    if (w.matchConditions.length > 0) causes.push(fe.required(at('matchConditionSubjectAccessReviewVersion'), 'required if match conditions are specified'));
  } else if (w.matchConditionSubjectAccessReviewVersion !== 'v1') {
    causes.push(fe.notSupported(at('matchConditionSubjectAccessReviewVersion'), w.matchConditionSubjectAccessReviewVersion, ['v1']));
  }
  if (w.failurePolicy === '') causes.push(fe.required(at('failurePolicy')));
  else if (w.failurePolicy !== 'NoOpinion' && w.failurePolicy !== 'Deny') causes.push(fe.notSupported(at('failurePolicy'), w.failurePolicy, ['NoOpinion', 'Deny']));
  const file = w.connectionInfo.kubeConfigFile;
  switch (w.connectionInfo.type) {
    case '':
      causes.push(fe.required(at('connectionInfo.type')));
      break;
    case 'InClusterConfig':
      if (file !== undefined) causes.push(fe.invalid(at('connectionInfo.kubeConfigFile'), file, 'can only be set when type=KubeConfigFile'));
      // The in-cluster configuration points at the API server itself: asking it would loop.
      else causes.push(fe.invalid(at('connectionInfo.type'), 'InClusterConfig', 'InClusterConfig is not allowed for kube-apiserver'));
      break;
    case 'KubeConfigFile':
      if (file === undefined || file === '') causes.push(fe.required(at('connectionInfo.kubeConfigFile')));
      else if (!isAbsolute(file)) causes.push(fe.invalid(at('connectionInfo.kubeConfigFile'), file, 'must be an absolute path'));
      else {
        try {
          if (!statSync(file).isFile()) causes.push(fe.invalid(at('connectionInfo.kubeConfigFile'), file, 'must be a regular file'));
        } catch (err) {
          causes.push(fe.invalid(at('connectionInfo.kubeConfigFile'), file, `error loading file: ${goPathError('stat', file, err)}`));
        }
      }
      break;
    default:
      causes.push(
        fe.notSupported(at('connectionInfo.type'), `{Type:${JSON.stringify(w.connectionInfo.type)}}`, ['InClusterConfig', 'KubeConfigFile']),
      );
  }
  causes.push(...compileMatchConditions(w.matchConditions, at('matchConditions')).causes);
  return causes;
}

/** ValidateAuthorizationConfiguration: every authorizer's type, name and webhook. */
export function validateAuthorizationConfiguration(config: AuthorizationConfiguration): StatusCause[] {
  const causes: StatusCause[] = [];
  if (config.authorizers.length === 0) causes.push(fe.required('authorizers', 'at least one authorization mode must be defined'));
  const known = [...AUTHORIZATION_MODE_CHOICES].sort();
  const seenTypes = new Set<string>();
  const seenNames = new Set<string>();
  config.authorizers.forEach((a, i) => {
    const path = `authorizers[${i}]`;
    if (a.type === '') {
      causes.push(fe.required(`${path}.type`));
      return;
    }
    if (!known.includes(a.type as AuthorizationMode)) {
      causes.push(fe.notSupported(`${path}.type`, a.type, known));
      return;
    }
    if (seenTypes.has(a.type) && a.type !== 'Webhook') {
      causes.push(fe.duplicate(`${path}.type`, a.type));
      return;
    }
    seenTypes.add(a.type);
    if (a.name === '') causes.push(fe.required(`${path}.name`));
    else if (seenNames.has(a.name)) causes.push(fe.duplicate(`${path}.name`, a.name));
    else {
      const errs = isDNS1123Subdomain(a.name);
      if (errs.length > 0) causes.push(fe.invalid(`${path}.name`, a.name, `authorizer name is invalid: ${errs.join(', ')}`));
    }
    seenNames.add(a.name);
    if (a.type === 'Webhook') {
      if (!a.webhook) causes.push(fe.required(`${path}.webhook`, 'required when type=Webhook'));
      else causes.push(...validateWebhook(path, a.webhook));
    } else if (a.webhook) {
      causes.push(fe.invalid(`${path}.webhook`, 'non-null', 'may only be specified when type=Webhook'));
    }
  });
  return causes;
}

/** The name kube-apiserver expects for a built-in authorizer in the file (GetNameForAuthorizerMode). */
export const nameForAuthorizerMode = (mode: string): string => mode.toLowerCase();

export class AuthorizationConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AuthorizationConfigError';
  }
}

/**
 * LoadAndValidateData: decode, validate, then kube-apiserver's own checks. `requiredTypes` are
 * the built-in types the running server started with; a reload may not drop them.
 */
export function loadAuthorizationConfiguration(text: string, options: { requiredTypes?: Iterable<string> } = {}): AuthorizationConfiguration {
  let config: AuthorizationConfiguration;
  try {
    config = decodeAuthorizationConfiguration(text);
  } catch (err) {
    if (err instanceof DecodeError) throw new AuthorizationConfigError(`failed to load AuthorizationConfiguration from file: ${err.message}`);
    throw err;
  }
  const causes = validateAuthorizationConfiguration(config);
  if (causes.length > 0) throw new AuthorizationConfigError(aggregateMessage(causes.map((c) => `${c.field}: ${c.message}`)));
  const errors: string[] = [];
  const seen = new Set<string>();
  for (const a of config.authorizers) {
    if (a.type === 'Webhook') continue;
    seen.add(a.type);
    const expected = nameForAuthorizerMode(a.type);
    if (a.name !== expected) errors.push(`expected name ${expected} for authorizer ${a.type} instead of ${a.name}`);
  }
  const missing = [...(options.requiredTypes ?? [])].filter((t) => !seen.has(t)).sort();
  if (missing.length > 0) errors.push(`missing required types: [${missing.join(' ')}]`);
  if (errors.length > 0) throw new AuthorizationConfigError(aggregateMessage(errors));
  return config;
}

/** The --authorization-webhook-* flags, when --authorization-mode includes Webhook. */
export interface LegacyWebhookFlags {
  configFile?: string;
  version?: string;
  authorizedTTLMs?: number;
  unauthorizedTTLMs?: number;
}

/**
 * buildAuthorizationConfiguration: each mode becomes an authorizer named after it; Webhook gets
 * the flags' kubeconfig, version (default v1beta1) and TTLs, with the 30 s timeout and
 * NoOpinion failure policy kube-apiserver implies for it.
 */
export function configurationFromModes(modes: readonly AuthorizationMode[], webhook: LegacyWebhookFlags = {}): AuthorizationConfiguration {
  return {
    authorizers: modes.map((mode) =>
      mode === 'Webhook'
        ? {
            type: 'Webhook',
            name: 'default',
            webhook: {
              authorizedTTLMs: webhook.authorizedTTLMs ?? DEFAULT_AUTHORIZED_TTL_MS,
              unauthorizedTTLMs: webhook.unauthorizedTTLMs ?? DEFAULT_UNAUTHORIZED_TTL_MS,
              timeoutMs: 30_000,
              subjectAccessReviewVersion: webhook.version ?? 'v1beta1',
              matchConditionSubjectAccessReviewVersion: '',
              failurePolicy: 'NoOpinion',
              connectionInfo: { type: 'KubeConfigFile', kubeConfigFile: webhook.configFile ?? '' },
              matchConditions: [],
            },
          }
        : { type: mode, name: nameForAuthorizerMode(mode) },
    ),
  };
}

/**
 * The legacy webhook's SubjectAccessReview version, which kube-apiserver checks only when it
 * builds the webhook, after the flags passed validation; undefined when it is supported.
 */
export function legacyWebhookVersionError(webhook: LegacyWebhookFlags): string | undefined {
  if (webhook.version === undefined || webhook.version === 'v1' || webhook.version === 'v1beta1') return undefined;
  return `unsupported webhook authorizer version "${webhook.version}", supported versions are "v1", "v1beta1"`;
}
