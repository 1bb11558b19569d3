// Content negotiation as kube-apiserver does it (k8s.io/apiserver endpoints/handlers/negotiation):
// the Accept header picks the response media type and an optional transformation
// (`;as=Table;g=meta.k8s.io;v=v1`, `;as=PartialObjectMetadata...`), Content-Type picks the
// decoder of a request body, and anything unsupported is a 406 or 415 Status with
// kube-apiserver's messages.
//
// Order of preference follows kube-apiserver exactly: Accept clauses are sorted by q (q=0 is not
// excluded), then concrete before wildcard types; within a clause the server's own order
// (JSON, YAML, protobuf) decides. A clause whose parameters the endpoint cannot honour is skipped.

import { notAcceptable, unsupportedMediaType } from '../errors/status-error.js';

export type Format = 'json' | 'yaml' | 'protobuf' | 'cbor';

export const MEDIA_TYPE_JSON = 'application/json';
export const MEDIA_TYPE_YAML = 'application/yaml';
export const MEDIA_TYPE_PROTOBUF = 'application/vnd.kubernetes.protobuf';
/** The specification's name for the protobuf media type; served as a synonym. */
export const MEDIA_TYPE_PROTOBUF_ALIAS = 'application/vnd.cluster.protobuf';
/** CBOR (gate CBORServingAndStorage): served after the others, as kube-apiserver appends it. */
export const MEDIA_TYPE_CBOR = 'application/cbor';
/** The Content-Type of a CBOR watch: a CBOR sequence (RFC 8742), one event per data item. */
export const MEDIA_TYPE_CBOR_SEQ = 'application/cbor-seq';

interface MediaTypeInfo {
  mediaType: string;
  type: string;
  subType: string;
  format: Format;
  /** Has a watch stream form (YAML has none). */
  streamable: boolean;
  /** Synonyms are accepted but never listed in error messages. */
  alias?: true;
}

const info = (mediaType: string, format: Format, streamable: boolean, alias?: true): MediaTypeInfo => {
  const [type, subType] = mediaType.split('/');
  return { mediaType, type, subType, format, streamable, ...(alias ? { alias } : {}) };
};

const SERVED: MediaTypeInfo[] = [
  info(MEDIA_TYPE_JSON, 'json', true),
  info(MEDIA_TYPE_YAML, 'yaml', false),
  info(MEDIA_TYPE_PROTOBUF, 'protobuf', true),
  info(MEDIA_TYPE_PROTOBUF_ALIAS, 'protobuf', true, true),
];

const CBOR = info(MEDIA_TYPE_CBOR, 'cbor', true);
const SERVED_WITH_CBOR = [...SERVED, CBOR];

/** The media types served: CBOR only with its feature gate on. */
const servedTypes = (cbor: boolean | undefined): readonly MediaTypeInfo[] => (cbor ? SERVED_WITH_CBOR : SERVED);

/** What 406 messages list (kube-apiserver's SupportedMediaTypes, synonyms left out). */
const listed = (cbor: boolean | undefined) => servedTypes(cbor).filter((m) => !m.alias).map((m) => m.mediaType);
const listedStreams = (cbor: boolean | undefined) =>
  servedTypes(cbor)
    .filter((m) => !m.alias && m.streamable)
    .map((m) => `${m.mediaType};stream=watch`);

/** One clause of an Accept header. */
export interface AcceptClause {
  type: string;
  subType: string;
  q: number;
  params: Record<string, string>;
}

const trimSpaces = (s: string): string => s.replace(/^ +| +$/g, '');

/** Splits at the first separator only, as goautoneg does. */
function splitFirst(s: string, sep: string): [string, string] {
  const i = s.indexOf(sep);
  return i < 0 ? [s, ''] : [s.slice(0, i), s.slice(i + 1)];
}

function precedes(a: AcceptClause, b: AcceptClause): boolean {
  if (a.q > b.q) return true;
  if (a.type !== '*' && b.type === '*') return true;
  if (a.subType !== '*' && b.subType === '*') return true;
  return false;
}

/** Accept values seen lately and their clauses: a client sends the same one with every request. */
const parsedAccepts = new Map<string, readonly AcceptClause[]>();
const PARSED_ACCEPTS_KEPT = 64;
/** Longer values are parsed each time: real clients' are far shorter, and the map stays small. */
const PARSED_ACCEPT_KEPT_LENGTH = 256;

/**
 * Parses an Accept header the way github.com/munnerz/goautoneg does, including its sort (an
 * insertion sort with its own, not quite total, ordering, which a stable sort would not mirror).
 * The clauses are frozen: one parse serves every request that sends the same value.
 */
export function parseAccept(header: string): readonly AcceptClause[] {
  const kept = parsedAccepts.get(header);
  if (kept) return kept;
  const clauses = parseAcceptText(header);
  for (const clause of clauses) {
    Object.freeze(clause.params);
    Object.freeze(clause);
  }
  Object.freeze(clauses);
  if (header.length <= PARSED_ACCEPT_KEPT_LENGTH) {
    // Bounded, so a client sending a new value each time cannot grow it.
    if (parsedAccepts.size >= PARSED_ACCEPTS_KEPT) parsedAccepts.clear();
    parsedAccepts.set(header, clauses);
  }
  return clauses;
}

function parseAcceptText(header: string): AcceptClause[] {
  const clauses: AcceptClause[] = [];
  let remaining = header;
  while (remaining.length > 0) {
    let part: string;
    [part, remaining] = splitFirst(remaining, ',');
    part = trimSpaces(part);
    const [range, paramText] = splitFirst(part, ';');
    const [rawType, rawSub] = splitFirst(range, '/');
    const clause: AcceptClause = { type: trimSpaces(rawType), subType: '', q: 1, params: {} };
    if (rawSub === '') {
      if (clause.type !== '*') continue;
      clause.subType = '*';
    } else {
      const [sub, extra] = splitFirst(rawSub, '/');
      if (extra !== '') continue;
      clause.subType = trimSpaces(sub);
    }
    let rest = paramText;
    while (rest.length > 0) {
      let param: string;
      [param, rest] = splitFirst(rest, ';');
      const [key, value] = splitFirst(param, '=');
      if (value === '' || value.includes('=')) continue;
      const token = trimSpaces(key);
      if (token === 'q') {
        // Go's strconv.ParseFloat(value, 32): no surrounding spaces; a bad value counts as 0.
        clause.q = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(value) ? Math.fround(Number(value)) : 0;
      } else {
        clause.params[token] = trimSpaces(value);
      }
    }
    clauses.push(clause);
  }
  for (let i = 1; i < clauses.length; i++) {
    for (let j = i; j > 0 && precedes(clauses[j], clauses[j - 1]); j--) {
      [clauses[j], clauses[j - 1]] = [clauses[j - 1], clauses[j]];
    }
  }
  return clauses;
}

/** A requested transformation of the response (`as`, `g`, `v` parameters). */
export interface ConvertTarget {
  kind: string;
  group: string;
  version: string;
}

export interface EndpointCapabilities {
  /** A watch: the media type needs a stream form. */
  streaming?: boolean;
  /** The kind has a protobuf message (false for custom resources). Default true. */
  protobufSupported?: boolean;
  /** The endpoint can render a Table. Default true. */
  tableSupported?: boolean;
  /** `?pretty=true`, or a browser or curl user agent (see isPrettyPrint). */
  pretty?: boolean;
  /** The CBORServingAndStorage gate: application/cbor is served. */
  cbor?: boolean;
  /**
   * Which transformations (`as`, `g`, `v`) the endpoint honours, replacing the resource endpoints'
   * Table and PartialObjectMetadata (kube-apiserver's EndpointRestrictions): discovery honours none,
   * or only the aggregated discovery kinds.
   */
  allowsConvert?: (target: ConvertTarget, format: Format) => boolean;
}

export interface NegotiatedMediaType {
  format: Format;
  /** The media type matched, as the client named it (`application/vnd.cluster.protobuf` stays). */
  mediaType: string;
  /** The Content-Type header of the response. */
  contentType: string;
  convert?: ConvertTarget;
  pretty: boolean;
  streaming: boolean;
}

const META_GROUP = 'meta.k8s.io';
const isMetaVersion = (t: ConvertTarget): boolean => t.group === META_GROUP && (t.version === 'v1' || t.version === 'v1beta1');

/** kube-apiserver's RequestScope.AllowsMediaTypeTransform. */
function allowsTransform(media: MediaTypeInfo, target: ConvertTarget | undefined, caps: EndpointCapabilities): boolean {
  if (!target) return media.format !== 'protobuf' || caps.protobufSupported !== false;
  if (caps.allowsConvert) return caps.allowsConvert(target, media.format);
  if (!isMetaVersion(target)) return false;
  switch (target.kind) {
    case 'Table':
      return caps.tableSupported !== false && (media.format === 'json' || media.format === 'yaml');
    case 'PartialObjectMetadata':
    case 'PartialObjectMetadataList':
      return true;
    default:
      return false;
  }
}

function acceptOptions(clause: AcceptClause, media: MediaTypeInfo, caps: EndpointCapabilities, restricted: boolean) {
  let convert: ConvertTarget | undefined;
  let pretty = false;
  for (const [key, value] of Object.entries(clause.params)) {
    switch (key) {
      case 'as':
        (convert ??= { kind: '', group: '', version: '' }).kind = value;
        break;
      case 'g':
        (convert ??= { kind: '', group: '', version: '' }).group = value;
        break;
      case 'v':
        (convert ??= { kind: '', group: '', version: '' }).version = value;
        break;
      case 'stream':
        if (value !== '' && (!media.streamable || value !== 'watch')) return undefined;
        break;
      case 'sv':
        // No endpoint of ours honours a server version.
        if (value !== '') return undefined;
        break;
      case 'pretty':
        pretty = value === '1';
        break;
      default:
        break;
    }
  }
  // Status errors are written with the default restrictions: no transformation at all.
  if (restricted ? convert !== undefined : !allowsTransform(media, convert, caps)) return undefined;
  return { convert, pretty };
}

function streamContentType(media: MediaTypeInfo): string {
  return media.format === 'json' ? media.mediaType : media.format === 'cbor' ? MEDIA_TYPE_CBOR_SEQ : `${media.mediaType};stream=watch`;
}

/** What pick chose: module-level, so a request allocates no closures to negotiate. */
function negotiated(media: MediaTypeInfo, caps: EndpointCapabilities, convert?: ConvertTarget, pretty = false): NegotiatedMediaType {
  const streaming = caps.streaming === true;
  return {
    format: media.format,
    mediaType: media.mediaType,
    contentType: streaming ? streamContentType(media) : media.mediaType,
    ...(convert ? { convert } : {}),
    pretty: pretty || caps.pretty === true,
    streaming,
  };
}

function pick(accept: string | undefined, caps: EndpointCapabilities, restricted = false): NegotiatedMediaType | undefined {
  if (!accept) return negotiated(SERVED[0], caps);
  for (const clause of parseAccept(accept)) {
    for (const media of servedTypes(caps.cbor)) {
      const matches =
        (clause.type === media.type && (clause.subType === media.subType || clause.subType === '*')) ||
        (clause.type === '*' && clause.subType === '*');
      if (!matches) continue;
      const options = acceptOptions(clause, media, caps, restricted);
      if (options) return negotiated(media, caps, options.convert, options.pretty);
    }
  }
  return undefined;
}

/** The first media type of Accept the endpoint can serve, or undefined when none is (no 406 thrown). */
export function selectOutput(accept: string | undefined, caps: EndpointCapabilities = {}): NegotiatedMediaType | undefined {
  return pick(accept, caps);
}

/**
 * The response media type of a request. Throws 406 NotAcceptable when no clause of Accept can
 * be served (and, for a watch, when the chosen type has no stream form, as kube-apiserver does).
 */
export function negotiateOutput(accept: string | undefined, caps: EndpointCapabilities = {}): NegotiatedMediaType {
  const chosen = pick(accept, caps);
  if (caps.streaming) {
    if (!chosen || !servedTypes(caps.cbor).find((m) => m.mediaType === chosen.mediaType)!.streamable) throw notAcceptable(listedStreams(caps.cbor));
    return chosen;
  }
  if (!chosen) throw notAcceptable(listed(caps.cbor));
  return chosen;
}

/**
 * The media type of an error Status: negotiated without any transformation, and JSON when
 * nothing fits (kube-apiserver never hides an error behind a negotiation failure).
 */
export function negotiateErrorOutput(accept: string | undefined, caps: EndpointCapabilities = {}): NegotiatedMediaType {
  const chosen = pick(accept, { ...caps, streaming: false }, true);
  return chosen ?? { format: 'json', mediaType: MEDIA_TYPE_JSON, contentType: MEDIA_TYPE_JSON, pretty: true, streaming: false };
}

/** Content-Type values seen lately and what they parse to: clients send the same few again and again. */
const parsedMediaTypes = new Map<string, string | undefined>();
const PARSED_MEDIA_TYPES_KEPT = 64;

/** Parses a media type as Go's mime.ParseMediaType does for our purposes: lower-cased, checked. */
function parseMediaType(value: string): string | undefined {
  if (parsedMediaTypes.has(value)) return parsedMediaTypes.get(value);
  const parsed = parseMediaTypeText(value);
  // Bounded, so a client sending a new value each time cannot grow it.
  if (parsedMediaTypes.size >= PARSED_MEDIA_TYPES_KEPT) parsedMediaTypes.clear();
  parsedMediaTypes.set(value, parsed);
  return parsed;
}

function parseMediaTypeText(value: string): string | undefined {
  const [base, ...params] = value.split(';');
  const mediaType = base.trim().toLowerCase();
  if (!/^[a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+$/.test(mediaType)) return undefined;
  for (const p of params) {
    if (p.trim() === '' && params.length === 1) continue;
    if (!/^\s*[A-Za-z0-9!#$&^_.+-]+\s*=\s*("([^"\\]|\\.)*"|[A-Za-z0-9!#$%&'*+.^_`|~-]+)\s*$/.test(p)) return undefined;
  }
  return mediaType;
}

/**
 * The format of a create or update body from its Content-Type (empty means JSON). Anything else
 * is a 415 listing what is accepted.
 */
export function negotiateInput(contentType: string | undefined, caps: { protobufSupported?: boolean; cbor?: boolean } = {}): Format {
  const mediaType = contentType ? parseMediaType(contentType) : MEDIA_TYPE_JSON;
  const served = servedTypes(caps.cbor);
  const media = served.find((m) => m.mediaType === mediaType);
  if (media && (media.format !== 'protobuf' || caps.protobufSupported !== false)) return media.format;
  const accepted = served.filter((m) => !m.alias && (m.format !== 'protobuf' || caps.protobufSupported !== false));
  throw unsupportedMediaType(contentType ?? '', accepted.map((m) => m.mediaType));
}

export type PatchType =
  | 'application/json-patch+json'
  | 'application/merge-patch+json'
  | 'application/strategic-merge-patch+json'
  | 'application/apply-patch+yaml'
  | 'application/apply-patch+cbor';

/** Every patch type of a built-in resource, in kube-apiserver's order. */
export const BUILTIN_PATCH_TYPES: readonly PatchType[] = [
  'application/json-patch+json',
  'application/merge-patch+json',
  'application/strategic-merge-patch+json',
  'application/apply-patch+yaml',
];

/** The patch types of a built-in resource: apply as CBOR joins them with CBORServingAndStorage. */
export function builtinPatchTypes(cbor: boolean): readonly PatchType[] {
  return cbor ? [...BUILTIN_PATCH_TYPES, 'application/apply-patch+cbor'] : BUILTIN_PATCH_TYPES;
}

/**
 * The patch type of a PATCH body. Parameters (`; charset=utf-8`) are ignored; an unlisted type is
 * a 415 naming the types the endpoint takes.
 */
export function negotiatePatchType(contentType: string | undefined, supported: readonly PatchType[] = BUILTIN_PATCH_TYPES): PatchType {
  let value = contentType ?? '';
  const semi = value.indexOf(';');
  if (semi > 0) value = value.slice(0, semi);
  const found = supported.find((t) => t === value);
  if (!found) throw unsupportedMediaType(contentType ?? '', [...supported]);
  return found;
}

/** kube-apiserver pretty-prints for `?pretty=true` and for browsers, curl and wget. */
export function isPrettyPrint(prettyParam: string | null | undefined, userAgent: string | null | undefined): boolean {
  if (prettyParam) return ['1', 't', 'T', 'true', 'TRUE', 'True'].includes(prettyParam);
  const ua = userAgent ?? '';
  return ua.startsWith('curl') || ua.startsWith('Wget') || ua.startsWith('Mozilla/5.0');
}
