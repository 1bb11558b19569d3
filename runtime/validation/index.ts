// The one place generated validators import their helpers from.

export { objectValidator, type KindValidation, type SchemaFunction } from './object-validator.js';
export { compileDefault, compileRule, type RuleSpec, type CompiledRule, type CompiledDefault, type ConditionalDefault } from './cel.js';
export { ajvFormats, FORMAT_CHECKS, nameChecks } from '../machinery/formats.js';
export { scalar, ref, list, map, kubePath, type Shape, type FieldInfo, type TypeInfo, type TypeTable } from './type-table.js';
export { validateObjectMeta, validateObjectMetaUpdate } from './object-meta.js';
export * as fieldErrors from './field-errors.js';
export { goQuote, goValue } from '../machinery/go-format.js';
export { appendAjvError } from './ajv-errors.js';
export { dropDisabledFields, hasGatedFields, type GateCheck } from './drop-disabled.js';
