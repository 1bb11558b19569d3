// Conversion of custom resources by the CRD's webhook (`spec.conversion.strategy: Webhook`), as
// kube-apiserver's apiextensions webhook converter does it: the objects not yet at the desired
// version go in one ConversionReview (v1, or v1beta1 when the CRD lists only that), POSTed over
// HTTPS to the clientConfig's `url`, or to a `service` resolved as kube's default resolver does
// (`https://<name>.<namespace>.svc:<port><path>`: this server has no cluster DNS, so a service
// reference works only where that name resolves; use `url` otherwise), trusting the CRD's
// `caBundle`, within 30 s. The answer is checked as kube checks it (review kind, uid, result,
// count, each object's apiVersion, kind, name, namespace and uid); the converted objects keep the
// originals' metadata except labels and annotations. Every failure is a 500 Status with kube's
// `conversion webhook for <group/version, Kind=kind> ...` message, never a crash.

import { randomUUID } from 'node:crypto';
import { WebhookCallError, WebhookClient } from '../../auth/webhook-client.js';
import { StatusError, type StatusCause } from '../../errors/status-error.js';
import { formatGoDuration } from '../../machinery/duration.js';
import { deepClone } from '../../machinery/object.js';
import { goQuote } from '../../machinery/go-format.js';
import { goUnmarshalObjectError } from '../../machinery/go-json.js';
import { validateAnnotations, validateLabels } from '../../validation/object-meta.js';
import type { ObjectConverter } from '../converting-storage.js';

type JsonObject = Record<string, unknown>;

/** `spec.conversion.webhook.clientConfig` of a CRD. */
export interface WebhookClientConfig {
  url?: string;
  service?: { namespace: string; name: string; path?: string; port?: number };
  /** Base64 PEM bundle that signs the webhook's serving certificate; absent: the system's roots. */
  caBundle?: string;
}

/** What a CRD says about its conversion webhook. */
export interface CRDConversionWebhook {
  /** The CRD's metadata.name. */
  crdName: string;
  clientConfig: WebhookClientConfig;
  conversionReviewVersions: string[];
}

export interface ConversionWebhookOptions {
  /** kube's webhook client timeout; tests shorten it. */
  timeoutMs?: number;
}

/** kube-apiserver's webhook client timeout (apiserver util/webhook). */
const DEFAULT_TIMEOUT_MS = 30_000;
/** Bodies a failed webhook sends back are quoted at most this long (client-go's maxUnstructuredResponseTextBytes). */
const MAX_ERROR_BODY = 2048;

const isObject = (v: unknown): v is JsonObject => v !== null && typeof v === 'object' && !Array.isArray(v);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/** schema.GroupVersionKind's String(): `group/version, Kind=Kind`. */
function gvkString(apiVersion: string, kind: string): string {
  const gv = apiVersion.includes('/') ? apiVersion : `/${apiVersion}`;
  return `${gv}, Kind=${kind}`;
}

/** The group/version an object claims, as schema.ParseGroupVersion reads it ('' when unparseable). */
function groupVersionOf(obj: JsonObject): string {
  const apiVersion = str(obj.apiVersion);
  return apiVersion.split('/').length > 2 ? '' : apiVersion;
}

function failure(message: string): StatusError {
  // A plain error in kube's storage path, which responsewriters turn into a 500 without a reason.
  return new StatusError(500, '', message);
}

/** The endpoint of a clientConfig: its url, or kube's default resolution of a service reference. */
export function webhookURL(config: WebhookClientConfig): { url: URL; serverName?: string } {
  if (config.url) return { url: new URL(config.url) };
  const service = config.service;
  if (!service) throw failure('conversion webhook has neither url nor service');
  const host = `${service.name}.${service.namespace}.svc`;
  return { url: new URL(`https://${host}:${service.port ?? 443}${service.path ?? ''}`), serverName: host };
}

/** client-go's words for a non-2xx answer without a Status body (errors.NewGenericServerResponse). */
function genericServerResponse(code: number, body: string): string {
  const text = body.slice(0, MAX_ERROR_BODY).trim();
  switch (code) {
    case 400:
      return 'the server rejected our request for an unknown reason';
    case 401:
      return 'the server has asked for the client to provide credentials';
    case 403:
      return 'the server does not allow access to the requested resource';
    case 404:
      return 'the server could not find the requested resource';
    case 405:
      return 'the server does not allow this method on the requested resource';
    case 409:
      return 'the server reported a conflict';
    case 413:
      return 'the server has rejected the request due to its size being too large';
    case 422:
      return 'the server rejected our request due to an error in our request';
    case 429:
      return 'the server has received too many requests and has asked us to try again later';
    case 500:
      return `an error on the server (${goQuote(text || 'unknown')}) has prevented the request from succeeding`;
    case 503:
      return 'the server is currently unable to handle the request';
    case 504:
      return 'the server was unable to return a response in the time allotted, but may still be processing the request';
  }
  return `the server responded with the status code ${code} but did not return more information`;
}

/** field.ErrorList.ToAggregate().Error(). */
function aggregate(causes: StatusCause[]): string {
  const texts = [...new Set(causes.map((c) => `${c.field}: ${c.message}`))];
  return texts.length === 1 ? texts[0] : `[${texts.join(', ')}]`;
}

/** Unstructured.UnmarshalJSON of one converted object (a RawExtension of the answer). */
function decodeObject(raw: unknown): JsonObject {
  const bytes = Buffer.from(JSON.stringify(raw ?? null));
  if (!isObject(raw)) throw new Error(goUnmarshalObjectError(bytes) || `Object 'Kind' is missing in '${bytes.toString()}'`);
  if (!str(raw.kind)) throw new Error(`Object 'Kind' is missing in '${bytes.toString()}'`);
  return raw;
}

/** ObjectMeta fields the webhook may not change (validateConvertedObject). */
function checkConverted(original: JsonObject, converted: JsonObject): void {
  const a = isObject(original.metadata) ? original.metadata : {};
  const b = isObject(converted.metadata) ? converted.metadata : {};
  const same = (what: string, x: unknown, y: unknown) => {
    if (str(x) !== str(y)) throw new Error(`must have the same ${what}: ${str(x)} != ${str(y)}`);
  };
  same('kind', original.kind, converted.kind);
  same('name', a.name, b.name);
  same('namespace', a.namespace, b.namespace);
  same('UID', a.uid, b.uid);
}

/** restoreObjectMeta: the original's metadata, with the webhook's labels and annotations (validated when changed). */
function restoreObjectMeta(original: JsonObject, converted: JsonObject): void {
  const answered = converted.metadata;
  if (answered === undefined) throw new Error('missing metadata in converted object');
  if (!isObject(answered)) throw new Error(`invalid metadata of type ${goTypeOf(answered)} in converted object`);
  const meta: JsonObject = isObject(original.metadata) ? (deepClone(original.metadata) as JsonObject) : {};
  for (const field of ['labels', 'annotations'] as const) {
    const value = answered[field];
    if (value === undefined || value === null) {
      delete meta[field];
      continue;
    }
    if (!isObject(value)) throw new Error(`invalid metadata.${field} of type ${goTypeOf(value)} in converted object`);
    const before = isObject(meta[field]) ? (meta[field] as JsonObject) : {};
    let changed = Object.keys(before).length !== Object.keys(value).length;
    for (const [k, v] of Object.entries(value)) {
      if (typeof v !== 'string') throw new Error(`metadata.${field}[${k}] must be a string, but is ${goTypeOf(v)} in converted object`);
      if (before[k] !== v) changed = true;
    }
    if (changed) {
      const strings = value as Record<string, string>;
      // kube names the annotations' path in the singular here.
      const causes = field === 'labels' ? validateLabels(strings, 'metadata.labels') : validateAnnotations(strings, 'metadata.annotation');
      if (causes.length > 0) throw new Error(aggregate(causes));
    }
    meta[field] = value;
  }
  converted.metadata = meta;
}

function goTypeOf(v: unknown): string {
  if (v === null) return '<nil>';
  if (Array.isArray(v)) return '[]interface {}';
  if (typeof v === 'string') return 'string';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'number') return Number.isInteger(v) ? 'int64' : 'float64';
  return 'map[string]interface {}';
}

/** An object with nothing but apiVersion and kind converts without the webhook (isEmptyUnstructuredObject). */
const isEmptyObject = (obj: JsonObject) => Object.keys(obj).length === 2 && 'kind' in obj && 'apiVersion' in obj;

/** The webhook of one CRD: one HTTPS client, kept while the CRD's conversion stays the same. */
export class ConversionWebhook {
  private readonly client: WebhookClient;
  private readonly reviewVersion: 'v1' | 'v1beta1' | undefined;

  constructor(
    readonly webhook: CRDConversionWebhook,
    options: ConversionWebhookOptions = {},
  ) {
    const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const { url, serverName } = webhookURL(webhook.clientConfig);
    // client-go tells the server its deadline in the query.
    url.searchParams.set('timeout', formatGoDuration(BigInt(timeoutMs) * 1_000_000n));
    const ca = webhook.clientConfig.caBundle ? Buffer.from(webhook.clientConfig.caBundle, 'base64').toString('utf8') : undefined;
    this.client = new WebhookClient({ url, ...(ca ? { ca } : {}), ...(serverName ? { serverName } : {}) }, timeoutMs);
    this.reviewVersion = webhook.conversionReviewVersions.find((v): v is 'v1' | 'v1beta1' => v === 'v1' || v === 'v1beta1');
  }

  /**
   * Converts `objects` (custom resources of this CRD, at any of its versions) to `desiredAPIVersion`
   * (`group/version`); objects already there are kept as they are. The result is in the same order.
   */
  async convert(objects: JsonObject[], desiredAPIVersion: string): Promise<JsonObject[]> {
    const isList = objects.length !== 1;
    const first = objects[0] ?? {};
    // kube names the input's kind: the object's, or the list's when several go at once.
    const inKind = gvkString(str(first.apiVersion), isList ? `${str(first.kind)}List` : str(first.kind));
    const out = objects.map((o) => (isEmptyObject(o) ? { ...o, apiVersion: desiredAPIVersion } : o));
    const pending = out.map((o, i) => (o.apiVersion === desiredAPIVersion ? -1 : i)).filter((i) => i >= 0);
    if (pending.length === 0) return out;
    if (!this.reviewVersion) throw failure('no supported conversion review versions');

    const uid = randomUUID();
    const review = {
      kind: 'ConversionReview',
      apiVersion: `apiextensions.k8s.io/${this.reviewVersion}`,
      request: { uid, desiredAPIVersion, objects: pending.map((i) => out[i]) },
      response: { uid: '', convertedObjects: null, result: { metadata: {} } },
    };
    let converted: unknown[];
    try {
      converted = this.readAnswer(await this.client.post(JSON.stringify(review)), uid);
    } catch (e) {
      if (e instanceof WebhookCallError || e instanceof AnswerError) throw failure(`conversion webhook for ${inKind} failed: ${e.message}`);
      throw e;
    }
    if (converted.length !== pending.length) {
      throw failure(`conversion webhook for ${inKind} returned ${converted.length} objects, expected ${pending.length}`);
    }
    const wantGV = desiredAPIVersion;
    pending.forEach((at, index) => {
      const original = out[at];
      const where = isList ? `invalid converted object at index ${index}` : 'invalid object at index 0';
      let object: JsonObject;
      try {
        object = decodeObject(converted[index]);
      } catch (e) {
        throw failure(isList ? `conversion webhook for ${inKind} returned ${where}: ${(e as Error).message}` : (e as Error).message);
      }
      const gotGV = groupVersionOf(object);
      if (gotGV !== wantGV) throw failure(`conversion webhook for ${inKind} returned ${where}: invalid groupVersion (expected ${wantGV}, received ${gotGV})`);
      if (str(object.kind) !== str(original.kind)) {
        throw failure(`conversion webhook for ${inKind} returned ${where}: invalid kind (expected ${str(original.kind)}, received ${str(object.kind)})`);
      }
      try {
        checkConverted(original, object);
      } catch (e) {
        throw failure(`conversion webhook for ${inKind} returned ${isList ? where : 'invalid object'}: ${(e as Error).message}`);
      }
      try {
        restoreObjectMeta(original, object);
      } catch (e) {
        const what = isList ? `invalid metadata in object at index ${index}` : 'invalid metadata';
        throw failure(`conversion webhook for ${inKind} returned ${what}: ${(e as Error).message}`);
      }
      out[at] = object;
    });
    return out;
  }

  /** getConvertedObjectsFromResponse, after the REST client's decoding of the answer. */
  private readAnswer(answer: { status: number; body: string }, uid: string): unknown[] {
    let body: unknown;
    try {
      body = JSON.parse(answer.body);
    } catch {
      if (answer.status < 200 || answer.status > 299) throw new AnswerError(genericServerResponse(answer.status, answer.body));
      const syntax = goUnmarshalObjectError(Buffer.from(answer.body));
      throw new AnswerError(`couldn't get version/kind; json parse error: ${syntax || 'unexpected end of JSON input'}`);
    }
    if (answer.status < 200 || answer.status > 299) {
      // A Status body is the error itself; anything else is worded by the status code.
      if (isObject(body) && body.kind === 'Status' && typeof body.message === 'string') throw new AnswerError(body.message);
      throw new AnswerError(genericServerResponse(answer.status, answer.body));
    }
    if (!isObject(body) || !str(body.kind)) throw new AnswerError(`Object 'Kind' is missing in '${answer.body}'`);
    const expected = `apiextensions.k8s.io/${this.reviewVersion}`;
    if (this.reviewVersion === 'v1' && (body.apiVersion !== expected || body.kind !== 'ConversionReview')) {
      throw new AnswerError(`expected webhook response of ${gvkString(expected, 'ConversionReview')}, got ${gvkString(str(body.apiVersion), str(body.kind))}`);
    }
    const response = body.response;
    if (!isObject(response)) throw new AnswerError('no response provided');
    // kube checks the uid of v1 reviews only.
    if (this.reviewVersion === 'v1' && str(response.uid) !== uid) throw new AnswerError(`expected response.uid=${goQuote(uid)}, got ${goQuote(str(response.uid))}`);
    const result = isObject(response.result) ? response.result : {};
    if (result.status !== 'Success') {
      if (str(result.message)) throw new AnswerError(str(result.message));
      throw new AnswerError(`response.result.status was '${str(result.status)}', not 'Success'`);
    }
    return Array.isArray(response.convertedObjects) ? response.convertedObjects : [];
  }

  close(): void {
    this.client.close();
  }
}

/** A webhook answer kube refuses; its message goes after `conversion webhook for <gvk> failed: `. */
class AnswerError extends Error {}

/** The contract's entry point: `webhook.convert(objects, desiredAPIVersion)`. */
export function convertObjects(webhook: ConversionWebhook, objects: JsonObject[], desiredAPIVersion: string): Promise<JsonObject[]> {
  return webhook.convert(objects, desiredAPIVersion);
}

/**
 * The conversion of a CRD whose `spec.conversion.strategy` is Webhook: its webhook (one client for
 * every served version), or undefined for any other strategy. A clientConfig that cannot be used
 * fails each conversion with its reason rather than the CRD's serving.
 */
export function webhookConversionOf(crd: JsonObject, options: ConversionWebhookOptions = {}): ObjectConverter | undefined {
  const spec = isObject(crd.spec) ? crd.spec : {};
  const conversion = isObject(spec.conversion) ? spec.conversion : {};
  if (conversion.strategy !== 'Webhook') return undefined;
  const webhook = isObject(conversion.webhook) ? conversion.webhook : {};
  const meta = isObject(crd.metadata) ? crd.metadata : {};
  let converter: ConversionWebhook;
  try {
    converter = new ConversionWebhook(
      {
        crdName: str(meta.name),
        clientConfig: (isObject(webhook.clientConfig) ? webhook.clientConfig : {}) as WebhookClientConfig,
        conversionReviewVersions: Array.isArray(webhook.conversionReviewVersions) ? webhook.conversionReviewVersions.map(String) : [],
      },
      options,
    );
  } catch (e) {
    const err = e instanceof StatusError ? e : failure(String((e as Error).message ?? e));
    return () => Promise.reject(err);
  }
  return (objects, toApiVersion) => converter.convert(objects, toApiVersion);
}

