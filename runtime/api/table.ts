// Server-side printing: the meta.k8s.io Table that `kubectl get` asks for with
// `Accept: application/json;as=Table;g=meta.k8s.io;v=v1`, built from a kind's PrinterColumns.
// Each row carries the object as the client asked (?includeObject=): its metadata as a
// PartialObjectMetadata (the default), the whole object, or nothing.

import { badRequest } from '../errors/status-error.js';
import type { PrinterColumn } from '../registry/definition.js';
import { asPartialObjectMetadata } from './partial-object-metadata.js';
import { cellFunction } from './table-cells.js';

type JsonObject = Record<string, unknown>;

export type IncludeObject = 'None' | 'Object' | 'Metadata';

export interface TableColumnDefinition {
  name: string;
  type: string;
  format: string;
  description: string;
  priority: number;
}

export interface TableRow {
  cells: unknown[];
  object: JsonObject | null;
}

export interface Table {
  kind: 'Table';
  apiVersion: string;
  metadata: { resourceVersion?: string; continue?: string; remainingItemCount?: number };
  /** null on the events after the first of a watch, as kube-apiserver sends them. */
  columnDefinitions: TableColumnDefinition[] | null;
  rows: TableRow[];
}

export interface TableOptions {
  includeObject?: IncludeObject;
  /** meta.k8s.io version of the Table: v1 (default) or v1beta1. */
  version?: string;
  /** Leaves out columnDefinitions (later events of a watch). */
  noHeaders?: boolean;
  /** The clock of the Age column; defaults to the current time. */
  now?: Date;
}

/**
 * The includeObject query parameter. kube-apiserver validates it before converting, with this
 * message for anything but Metadata, Object, None or empty.
 */
export function parseIncludeObject(value: string | null | undefined): IncludeObject {
  if (!value) return 'Metadata';
  if (value === 'Metadata' || value === 'Object' || value === 'None') return value;
  throw badRequest(
    `Unable to convert to Table as requested: includeObject: Invalid value: ${JSON.stringify(value)}: must be 'Metadata', 'Object', 'None', or empty`,
  );
}

function columnDefinitions(columns: PrinterColumn[]): TableColumnDefinition[] {
  return columns.map((c) => ({
    name: c.name,
    type: c.type,
    format: c.format ?? '',
    description: c.description,
    priority: c.priority,
  }));
}

function rowObject(obj: JsonObject, include: IncludeObject, version: string, typeMeta: JsonObject): JsonObject | null {
  switch (include) {
    case 'None':
      return null;
    case 'Object':
      // Upstream converts each row's object to the endpoint's version, which sets its type fields
      // (the items of a list have none of their own).
      return obj.kind && obj.apiVersion ? obj : { ...typeMeta, ...obj };
    case 'Metadata':
      return asPartialObjectMetadata(obj, version);
  }
}

/** A Table of one object or of a list (an object with `items`), with its list metadata. */
export function buildTable(columns: PrinterColumn[], source: JsonObject, options: TableOptions = {}): Table {
  const version = options.version ?? 'v1';
  const include = options.includeObject ?? 'Metadata';
  const now = options.now ?? new Date();
  const cells = columns.map(cellFunction);
  const isList = Array.isArray(source.items);
  const objects = isList ? (source.items as JsonObject[]) : [source];
  const typeMeta: JsonObject = {
    kind: isList ? String(source.kind ?? '').replace(/List$/, '') : source.kind,
    apiVersion: source.apiVersion,
  };
  const rows = objects.map((obj) => ({
    cells: cells.map((cell) => cell(obj, now)),
    object: rowObject(obj, include, version, typeMeta),
  }));
  const sourceMeta = (source.metadata ?? {}) as JsonObject;
  const metadata: Table['metadata'] = {};
  if (sourceMeta.resourceVersion) metadata.resourceVersion = String(sourceMeta.resourceVersion);
  if (isList && sourceMeta.continue) metadata.continue = String(sourceMeta.continue);
  if (isList && typeof sourceMeta.remainingItemCount === 'number') metadata.remainingItemCount = sourceMeta.remainingItemCount;
  return {
    kind: 'Table',
    apiVersion: `meta.k8s.io/${version}`,
    metadata,
    columnDefinitions: options.noHeaders ? null : columnDefinitions(columns),
    rows,
  };
}

/**
 * Renders the objects of a Table watch: one single-row Table per event, column definitions on
 * the first event only. Call render() once per event, in stream order.
 */
export function tableWatchRenderer(columns: PrinterColumn[], options: Omit<TableOptions, 'noHeaders'> = {}) {
  let first = true;
  return {
    render(obj: JsonObject, now?: Date): Table {
      const table = buildTable(columns, obj, { ...options, noHeaders: !first, ...(now ? { now } : {}) });
      first = false;
      return table;
    },
  };
}
