// The server-side Table columns of one served version of a CustomResourceDefinition, as
// kube-apiserver builds them (customresource_handler.go getColumnsForVersion and the table
// convertor's New): Name first, then the version's additionalPrinterColumns, or an Age column
// over metadata.creationTimestamp when the version lists none.

import { JSONPathError, parseColumnJSONPath } from '../machinery/jsonpath.js';
import type { PrinterColumn } from './definition.js';

/** One entry of `spec.versions[*].additionalPrinterColumns` as the CRD holds it. */
export interface CustomResourceColumnDefinition {
  name: string;
  type: string;
  format?: string;
  description?: string;
  priority?: number;
  jsonPath: string;
}

// ObjectMeta's field documentation (apimachinery's swagger docs), which kube uses as these columns' descriptions.
const NAME_DESCRIPTION =
  'Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names';
const CREATION_TIMESTAMP_DESCRIPTION =
  'CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata';

const DEFAULT_COLUMNS: CustomResourceColumnDefinition[] = [
  { name: 'Age', type: 'date', description: CREATION_TIMESTAMP_DESCRIPTION, jsonPath: '.metadata.creationTimestamp' },
];

/**
 * The columns of a version. Like kube's convertor, a column whose path does not parse ends the
 * list there (kube logs it and serves the columns before it); CRD validation refuses most such
 * paths first.
 */
export function customResourcePrinterColumns(additional: CustomResourceColumnDefinition[] | undefined): PrinterColumn[] {
  const columns: PrinterColumn[] = [
    { name: 'Name', type: 'string', format: 'name', priority: 0, description: NAME_DESCRIPTION, jsonPath: '.metadata.name' },
  ];
  for (const col of additional && additional.length > 0 ? additional : DEFAULT_COLUMNS) {
    try {
      parseColumnJSONPath(col.jsonPath);
    } catch (e) {
      if (e instanceof JSONPathError) break;
      throw e;
    }
    columns.push({
      name: col.name,
      // CRD validation admits kube's five types only; a cell of any other type is nil, as in kube.
      type: col.type as PrinterColumn['type'],
      format: col.format ?? '',
      priority: col.priority ?? 0,
      description: col.description ? col.description : `Custom resource definition column (in JSONPath format): ${col.jsonPath}`,
      crdJSONPath: col.jsonPath,
    });
  }
  return columns;
}
