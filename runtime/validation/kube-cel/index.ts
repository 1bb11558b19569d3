// x-kubernetes-validations of a CustomResourceDefinition's schema (apiextensions-apiserver
// pkg/apiserver/schema/cel and the CEL part of ValidateCustomResourceDefinitionOpenAPISchema).
// compileRules runs once per CRD change: it checks each rule's fields, type-checks each rule with
// `self` (and `oldSelf`) typed from the schema node the rule is on, estimates its cost against
// kube's per-rule and per-CRD limits, and returns the causes kube gives at CRD write plus the
// compiled rules. Rules are type-checked in an environment with one object type per schema object
// (so a misspelt field does not compile) and evaluated in one where values are dynamic maps, which
// cel-js evaluates without per-type wrappers. Evaluation follows kube's validator: transition rules
// run only where an old value correlates, every call is metered, one budget spans the object, and
// on update errors of unchanged values are ratcheted (CRDValidationRatcheting, GA in 1.33).

import { Optional, type Environment } from '@marcbachmann/cel-js';
import type { StatusCause } from '../../errors/status-error.js';
import { deepEqual } from '../../machinery/deep-equal.js';
import { goQuote } from '../../machinery/go-format.js';
import { getMember } from '../../machinery/own-member.js';
import * as fe from '../field-errors.js';
import { celTypeOf, isEmbedded, schemaDecl, unboundedCardinality, type DeclNode, type Schema } from './decl.js';
import { celGoEvalError, celGoIssue, kubeEnvironment, parseRule, invalidFindLiteral, invalidRegexLiteral } from './environment.js';
import { analyzeRule } from './cost-estimate.js';
import { validFieldPath } from './field-path.js';
import { celFields, celValue } from './values.js';
import { COST_LIMIT_MESSAGE, CostLimitExceeded, instrument, eachNode, isNode, PER_CALL_LIMIT, RUNTIME_CEL_COST_BUDGET, runMetered, type CelNode } from './runtime-cost.js';

/** StaticEstimatedCostLimit: the most one rule may be estimated to cost, times how often it can run. */
export const STATIC_ESTIMATED_COST_LIMIT = 10_000_000;
/** StaticEstimatedCRDCostLimit: the most all rules of one schema may be estimated to cost together. */
export const STATIC_ESTIMATED_CRD_COST_LIMIT = 100_000_000;
/** celconfig.MaxEvaluatedMessageExpressionSizeBytes. */
const MAX_MESSAGE_EXPRESSION_BYTES = 5 * 1024;

const SUPPORTED_REASONS = ['FieldValueDuplicate', 'FieldValueForbidden', 'FieldValueInvalid', 'FieldValueRequired'];

export interface ValidationRule {
  rule?: string;
  message?: string;
  messageExpression?: string;
  reason?: string;
  fieldPath?: string;
  optionalOldSelf?: boolean;
}

export interface CompiledRules {
  /** Every x-kubernetes-validations rule of the schema over `obj` (and `old` on update: transition rules), with kube's per-rule and per-object runtime budgets; kube's messages and paths. */
  validate(obj: Record<string, unknown>, old?: Record<string, unknown>): StatusCause[];
  /** As validate, and the ratcheted errors of unchanged values, which kube returns as warnings. */
  validateWithWarnings(obj: Record<string, unknown>, old?: Record<string, unknown>): { causes: StatusCause[]; warnings: string[] };
  /** True when the schema has no rule at all (the caller may skip validate). */
  readonly empty: boolean;
}

type Evaluate = (vars: Record<string, unknown>) => unknown;

interface CompiledRule {
  rule: ValidationRule;
  usesOldSelf: boolean;
  /** The messageExpression reads oldSelf. */
  messageUsesOldSelf?: boolean;
  program?: Evaluate;
  message?: Evaluate;
  /** The fields of self the rule and its message read, when they read it only by field selection; undefined: self whole. */
  selfFields?: ReadonlySet<string>;
  /** The normalized fieldPath, below the node. */
  fieldPath?: string;
}

/** One schema node that has rules at or below it. */
interface NodeValidator {
  schema: Schema;
  decl?: DeclNode;
  rules: CompiledRule[];
  /**
   * The fields of self every rule here reads, when all of them read it only by field selection:
   * self is then built of those fields alone. Undefined: some rule uses self whole.
   */
  selfFields?: ReadonlySet<string>;
  properties: Map<string, NodeValidator>;
  items?: NodeValidator;
  additionalProperties?: NodeValidator;
}

const obj = (v: unknown): Schema | undefined => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Schema) : undefined);
const rulesOf = (s: Schema): ValidationRule[] => (Array.isArray(s['x-kubernetes-validations']) ? (s['x-kubernetes-validations'] as ValidationRule[]) : []);

const BLOCKING_REASONS = new Set(['FieldValueNotSupported', 'FieldValueRequired', 'FieldValueTooLong', 'FieldValueTooMany', 'FieldValueTypeInvalid']);

/**
 * hasBlockingErr (customresource strategy): when the schema validation of a custom resource
 * found a wrong type, a missing required field, an unsupported enum value or a length or count
 * beyond its maximum, kube does not run the rules and adds this cause instead.
 */
export function rulesBlockedBy(schemaCauses: readonly StatusCause[]): StatusCause | undefined {
  if (!schemaCauses.some((c) => BLOCKING_REASONS.has(c.reason ?? ''))) return undefined;
  return fe.invalid('<nil>', 'null', 'some validation rules were not checked because the object was invalid; correct the existing errors to complete validation');
}

/** Go's %#v of an apiextensions.ValidationRule, the value kube's compile errors echo. */
export function ruleValue(r: ValidationRule): string {
  const ptr = (type: string, set: boolean): string => `(*${type})(${set ? '0xc000000000' : 'nil'})`;
  return (
    `apiextensions.ValidationRule{Rule:${goQuote(r.rule ?? '')}, Message:${goQuote(r.message ?? '')}, ` +
    `MessageExpression:${goQuote(r.messageExpression ?? '')}, Reason:${ptr('apiextensions.FieldValueErrorReason', r.reason !== undefined)}, ` +
    `FieldPath:${goQuote(r.fieldPath ?? '')}, OptionalOldSelf:${ptr('bool', r.optionalOldSelf !== undefined)}}`
  );
}

const invalidRule = (field: string, r: ValidationRule, detail: string): StatusCause => ({
  reason: 'FieldValueInvalid',
  message: `Invalid value: ${ruleValue(r)}: ${detail}`,
  field,
});

const hasNewlines = (s: string): boolean => /[\n\r]/.test(s);

/** The rule-field checks kube makes before compiling (rule required, message, reason, fieldPath). */
function ruleFieldCauses(schema: Schema, r: ValidationRule, at: string): StatusCause[] {
  const causes: StatusCause[] = [];
  const rule = (r.rule ?? '').trim();
  const message = (r.message ?? '').trim();
  if (rule === '') causes.push(fe.required(`${at}.rule`, 'rule is not specified'));
  else if ((r.message ?? '').length > 0 && message === '') causes.push(fe.invalid(`${at}.message`, r.message, 'message must be non-empty if specified'));
  else if (hasNewlines(message)) causes.push(fe.invalid(`${at}.message`, r.message, 'message must not contain line breaks'));
  else if (hasNewlines(rule) && message === '') causes.push(fe.required(`${at}.message`, 'message must be specified if rule contains line breaks'));
  if ((r.messageExpression ?? '').length > 0 && (r.messageExpression ?? '').trim() === '') {
    causes.push(fe.required(`${at}.messageExpression`, 'messageExpression must be non-empty if specified'));
  }
  if (r.reason !== undefined && !SUPPORTED_REASONS.includes(r.reason)) causes.push(fe.notSupported(`${at}.reason`, r.reason, SUPPORTED_REASONS));
  const fieldPath = r.fieldPath ?? '';
  if (fieldPath.length > 0 && fieldPath.trim() === '') causes.push(fe.invalid(`${at}.fieldPath`, fieldPath, 'fieldPath must be non-empty if specified'));
  if (hasNewlines(fieldPath)) causes.push(fe.invalid(`${at}.fieldPath`, fieldPath, 'fieldPath must not contain line breaks'));
  if (fieldPath.length > 0) {
    try {
      validFieldPath(fieldPath, schema);
    } catch {
      causes.push(fe.invalid(`${at}.fieldPath`, fieldPath, 'fieldPath must be a valid path'));
    }
  }
  return causes;
}

/** A rule node found by the schema walk. */
interface RuleSite {
  schema: Schema;
  decl?: DeclNode;
  path: string;
  /** How many times the node's rules can run per object; undefined when unbounded. */
  cardinality?: number;
  /** The highest ancestor below which old values do not correlate (items of lists that are not list-type=map, properties of atomic maps). */
  uncorrelatable?: string;
  validator: NodeValidator;
}

/** extractMaxElements: how many children a node can have, undefined when unbounded. */
function maxElements(s: Schema): number | undefined {
  const max = (v: unknown): number | undefined => (typeof v === 'number' ? Math.max(0, v) : undefined);
  if (s.type === 'object') return obj(s.additionalProperties) ? max(s.maxProperties) : 1;
  if (s.type === 'array') return max(s.maxItems);
  return 1;
}

/** Walks the schema as kube's CELSchemaContext does, building the validator tree and the rule sites. */
function walk(schema: Schema, decl: DeclNode | undefined, path: string, cardinality: number | undefined, sites: RuleSite[], uncorrelatable?: string): NodeValidator | undefined {
  const node: NodeValidator = { schema, decl, rules: [], properties: new Map() };
  let any = false;
  const elements = maxElements(schema);
  const childCardinality = cardinality !== undefined && elements !== undefined ? cardinality * elements : undefined;
  // A child the parent's declaration does not expose (an unescapable name, say) gets one of its own, as in kube.
  const childDecl = (child: Schema, fromParent: DeclNode | undefined): DeclNode | undefined => fromParent ?? schemaDecl(child, isEmbedded(child));
  const fieldDecls = new Map([...(decl?.fields?.values() ?? [])].map((f) => [f.jsonName, f.decl]));
  for (const [name, value] of Object.entries(obj(schema.properties) ?? {})) {
    const child = obj(value);
    if (!child) continue;
    const fieldDecl = fieldDecls.get(name);
    const atomicMap = schema['x-kubernetes-map-type'] === 'atomic';
    const v = walk(child, childDecl(child, fieldDecl), `${path}.properties[${name}]`, childCardinality, sites, uncorrelatable ?? (atomicMap ? path : undefined));
    if (v) {
      node.properties.set(name, v);
      any = true;
    }
  }
  const items = obj(schema.items);
  if (items) {
    const byKey = schema['x-kubernetes-list-type'] === 'map';
    node.items = walk(items, childDecl(items, decl?.kind === 'list' ? decl.elem : undefined), `${path}.items`, childCardinality, sites, uncorrelatable ?? (byKey ? undefined : path));
    any ||= node.items !== undefined;
  }
  const additional = obj(schema.additionalProperties);
  if (additional) {
    node.additionalProperties = walk(additional, childDecl(additional, decl?.kind === 'map' ? decl.elem : undefined), `${path}.additionalProperties`, childCardinality, sites, uncorrelatable);
    any ||= node.additionalProperties !== undefined;
  }
  if (rulesOf(schema).length > 0) {
    sites.push({ schema, decl, path, cardinality, uncorrelatable, validator: node });
    any = true;
  }
  return any ? node : undefined;
}

/** Every object declaration under `d`, children first (types must exist before they are named). */
function objectDecls(d: DeclNode | undefined, out: DeclNode[], seen: Set<DeclNode>): void {
  if (!d || seen.has(d)) return;
  seen.add(d);
  if (d.elem) objectDecls(d.elem, out, seen);
  for (const f of d.fields?.values() ?? []) objectDecls(f.decl, out, seen);
  if (d.kind === 'object') out.push(d);
}

/** Evaluation environments: self is dynamic, oldSelf dynamic or optional. */
let evalEnvs: { plain: Environment; optional: Environment } | undefined;
function evaluationEnvironments(): { plain: Environment; optional: Environment } {
  if (!evalEnvs) {
    const plain = kubeEnvironment();
    plain.registerVariable('self', 'dyn');
    plain.registerVariable('oldSelf', 'dyn');
    const optional = kubeEnvironment();
    optional.registerVariable('self', 'dyn');
    optional.registerVariable('oldSelf', 'optional<dyn>');
    evalEnvs = { plain, optional };
  }
  return evalEnvs;
}

function usesVariable(root: unknown, name: string): boolean {
  let found = false;
  eachNode(root, (n) => {
    if (n.op === 'id' && n.args === name) found = true;
  });
  return found;
}

/** The nodes held directly by a node: in its arguments (through lists and comprehension parts), its macro's and its expansion. */
function childNodes(n: CelNode): CelNode[] {
  const out: CelNode[] = [];
  const stack: unknown[] = [n.args, n.meta.macro?.args, n.meta.alternate];
  while (stack.length > 0) {
    const v = stack.pop();
    if (isNode(v)) out.push(v);
    else if (Array.isArray(v)) for (const x of v) stack.push(x);
    else if (n.op === 'comprehension' && v === n.args && typeof v === 'object' && v !== null) for (const x of Object.values(v)) stack.push(x);
  }
  return out;
}

/**
 * The fields of `self` an expression reads when every reference to self is a field selection
 * (`self.x`, `self.?x`, `has(self.x)`); undefined when self is used whole anywhere (compared,
 * passed to a function, indexed, iterated), or is the whole expression.
 */
function selectedSelfFields(root: unknown): Set<string> | undefined {
  const isSelf = (n: CelNode): boolean => n.op === 'id' && n.args === 'self';
  if (isNode(root) && isSelf(root)) return undefined;
  const fields = new Set<string>();
  let whole = false;
  eachNode(root, (n) => {
    for (const c of childNodes(n)) {
      if (!isSelf(c)) continue;
      const args = n.args as unknown[];
      const selection = (n.op === '.' || n.op === '.?') && Array.isArray(args) && args[0] === c && typeof args[1] === 'string';
      if (selection) fields.add(args[1] as string);
      else whole = true;
    }
  });
  return whole ? undefined : fields;
}

/** The fields of self a node's rules read together; undefined when one of them uses self whole. */
function selfFieldsOfRules(rules: readonly CompiledRule[]): ReadonlySet<string> | undefined {
  const fields = new Set<string>();
  for (const r of rules) {
    if (!r.program) continue;
    if (!r.selfFields) return undefined;
    for (const f of r.selfFields) fields.add(f);
  }
  return fields;
}

/** Parses and type-checks `source`; returns the checked program or cel-go's issue text. */
function check(env: Environment, source: string): { program: ReturnType<Environment['parse']>; type: string } | { error: string } {
  let program: ReturnType<Environment['parse']>;
  try {
    program = parseRule(env, source);
  } catch (err) {
    return { error: celGoIssue(err, source) };
  }
  const checked = program.check();
  if (!checked.valid) return { error: celGoIssue(checked.error, source) };
  const invalidRegex = invalidRegexLiteral(program.ast, source);
  if (invalidRegex) return { error: invalidRegex };
  return { program, type: checked.type ?? '' };
}

/**
 * A program for evaluation: parsed in the dynamic environment, checked, and metered. An
 * expression the typed check accepted is expected to build here; if one does not, it is refused
 * at CRD write rather than skipped at run time.
 */
function evaluationProgram(source: string, optionalOldSelf: boolean): Evaluate | { error: string } {
  const envs = evaluationEnvironments();
  try {
    const program = parseRule(optionalOldSelf ? envs.optional : envs.plain, source);
    const checked = program.check();
    if (!checked.valid) return { error: celGoIssue(checked.error, source) };
    instrument(program.ast);
    return (vars) => program(vars);
  } catch (err) {
    return { error: celGoIssue(err, source) };
  }
}

/** getCostErrorMessage. */
export function costErrorMessage(costName: string, cost: number, limit: number): string {
  const factor = cost / limit;
  let shown: string;
  if (factor > 100) shown = 'more than 100x';
  else if (factor < 1.5) shown = `${factor.toFixed(6)}x`;
  else shown = `${factor.toFixed(1)}x`;
  return `${costName} exceeds budget by factor of ${shown} (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)`;
}

class TotalCost {
  total = 0;
  mostExpensive: { path: string; cost: number }[] = [];
  observe(path: string, cost: number): void {
    this.total += cost;
    if (cost < STATIC_ESTIMATED_CRD_COST_LIMIT / 100) return;
    this.mostExpensive.push({ path, cost });
    this.mostExpensive.sort((a, b) => b.cost - a.cost);
    this.mostExpensive.length = Math.min(this.mostExpensive.length, 4);
  }
}

/** Registers the object types of every rule site on a clone of the base environment. */
function typedEnvironment(sites: RuleSite[]): Environment {
  const env = kubeEnvironment();
  const decls: DeclNode[] = [];
  const seen = new Set<DeclNode>();
  for (const site of sites) objectDecls(site.decl, decls, seen);
  decls.forEach((d, i) => {
    d.typeName = `object${i}`;
  });
  for (const d of decls) {
    const fields: Record<string, string> = {};
    for (const [name, f] of d.fields ?? []) fields[name] = celTypeOf(f.decl);
    class CelObject extends Map<string, unknown> {}
    env.registerType(d.typeName as string, { ctor: CelObject, fields });
    env.registerOperator(`${d.typeName} == ${d.typeName}`, (a: unknown, b: unknown) => deepEqual(a, b));
  }
  return env;
}

export interface CompileOptions {
  /**
   * kube's suppressExpressionCostForUnchangedSchema: on a CRD update that leaves this version's
   * schema as it was, rules are not refused for their own estimated cost (the total still counts).
   */
  suppressPerExpressionCost?: boolean;
}

/** At CRD write: compile and estimated-cost errors with kube's messages and paths below fldPath; `rules` for serving. */
export function compileRules(schema: Record<string, unknown>, fldPath: string, opts: CompileOptions = {}): { causes: StatusCause[]; rules: CompiledRules } {
  const sites: RuleSite[] = [];
  const rootDecl = schemaDecl(schema, true);
  const root = walk(schema, rootDecl, fldPath, 1, sites);
  const causes: StatusCause[] = [];
  const total = new TotalCost();
  const typed = sites.length > 0 ? typedEnvironment(sites) : undefined;

  for (const site of sites) {
    const rules = rulesOf(site.schema);
    const fieldCauses = rules.flatMap((r, i) => ruleFieldCauses(site.schema, r, `${site.path}.x-kubernetes-validations[${i}]`));
    causes.push(...fieldCauses);
    if (fieldCauses.length > 0 || !typed) continue;
    if (!site.decl) {
      causes.push(fe.internal(`${site.path}.x-kubernetes-validations`, 'internal error: failed to construct type information for x-kubernetes-validations rules: unable to convert structural schema to CEL declarations'));
      continue;
    }
    const selfDecl = site.decl;
    const selfType = celTypeOf(selfDecl);
    const envs: Record<'plain' | 'optional', Environment | undefined> = { plain: undefined, optional: undefined };
    const envFor = (optional: boolean): Environment => {
      const key = optional ? 'optional' : 'plain';
      let env = envs[key];
      if (env === undefined) {
        env = typed.clone();
        env.registerVariable('self', selfType);
        env.registerVariable('oldSelf', optional ? `optional<${selfType}>` : selfType);
        envs[key] = env;
      }
      return env;
    };
    const maxCardinality = site.cardinality ?? unboundedCardinality(site.decl);
    rules.forEach((r, i) => {
      const at = `${site.path}.x-kubernetes-validations[${i}]`;
      const compiled: CompiledRule = { rule: r, usesOldSelf: false };
      site.validator.rules.push(compiled);
      const optional = r.optionalOldSelf === true;
      const env = envFor(optional);
      const source = r.rule ?? '';
      const result = check(env, source);
      let ruleCost = 0;
      if ('error' in result) {
        causes.push(invalidRule(`${at}.rule`, r, `compilation failed: ${result.error}`));
      } else if (result.type !== 'bool') {
        causes.push(invalidRule(`${at}.rule`, r, 'cel expression must evaluate to a bool'));
      } else {
        const analysis = analyzeRule(result.program.ast, selfDecl);
        if (analysis.undefinedField) {
          const { node, name } = analysis.undefinedField;
          // cel-go places the error at the selection's dot, which follows the operand.
          const operand = (node.args as { range?: { end: number } }[])[0];
          const dot = operand?.range?.end ?? node.pos ?? 0;
          causes.push(invalidRule(`${at}.rule`, r, `compilation failed: ${celGoIssue({ summary: `No such key: ${name}`, range: { start: dot, end: dot } }, source)}`));
        } else {
          compiled.usesOldSelf = usesVariable(result.program.ast, 'oldSelf');
          compiled.selfFields = selectedSelfFields(result.program.ast);
          const badPattern = invalidFindLiteral(result.program.ast);
          const program = badPattern === undefined ? evaluationProgram(source, optional) : { error: badPattern };
          if (typeof program === 'function') compiled.program = program;
          else causes.push(invalidRule(`${at}.rule`, r, `program instantiation failed: ${program.error}`));
          // kube estimates no cost for a rule whose program could not be built.
          if (badPattern === undefined) ruleCost = analysis.cost;
        }
      }
      const expressionCost = ruleCost * maxCardinality;
      if (!opts.suppressPerExpressionCost && expressionCost > STATIC_ESTIMATED_COST_LIMIT) causes.push(fe.forbidden(`${at}.rule`, costErrorMessage('estimated rule cost', expressionCost, STATIC_ESTIMATED_COST_LIMIT)));
      total.observe(`${at}.rule`, expressionCost);
      if (r.messageExpression) {
        const msg = check(env, r.messageExpression);
        if ('error' in msg) causes.push(invalidRule(`${at}.messageExpression`, r, `messageExpression compilation failed: ${msg.error}`));
        else if (msg.type !== 'string') causes.push(invalidRule(`${at}.messageExpression`, r, 'messageExpression must evaluate to a string'));
        else {
          const program = evaluationProgram(r.messageExpression, optional);
          if (typeof program === 'function') compiled.message = program;
          else causes.push(invalidRule(`${at}.messageExpression`, r, `messageExpression instantiation failed: ${program.error}`));
          compiled.messageUsesOldSelf = usesVariable(msg.program.ast, 'oldSelf');
          const messageFields = selectedSelfFields(msg.program.ast);
          compiled.selfFields = compiled.selfFields && messageFields ? new Set([...compiled.selfFields, ...messageFields]) : undefined;
          const msgCost = analyzeRule(msg.program.ast, selfDecl).cost;
          if (!opts.suppressPerExpressionCost && msgCost > STATIC_ESTIMATED_COST_LIMIT) causes.push(fe.forbidden(`${at}.messageExpression`, costErrorMessage('estimated messageExpression cost', msgCost, STATIC_ESTIMATED_COST_LIMIT)));
          total.observe(`${at}.messageExpression`, msgCost);
        }
      }
      if (compiled.usesOldSelf && site.uncorrelatable !== undefined) {
        causes.push(fe.invalid(`${at}.rule`, r.rule, `oldSelf cannot be used on the uncorrelatable portion of the schema within ${site.uncorrelatable}`));
      } else if (!compiled.usesOldSelf && r.optionalOldSelf !== undefined && compiled.program) {
        causes.push(fe.invalid(`${at}.optionalOldSelf`, r.optionalOldSelf, 'may not be set if oldSelf is not used in rule'));
      }
      if (r.fieldPath) {
        try {
          compiled.fieldPath = validFieldPath(r.fieldPath, site.schema).path;
        } catch {
          // Reported by ruleFieldCauses.
        }
      }
    });
    site.validator.selfFields = selfFieldsOfRules(site.validator.rules);
  }
  if (total.total > STATIC_ESTIMATED_CRD_COST_LIMIT) {
    for (const expensive of total.mostExpensive) causes.push(fe.forbidden(expensive.path, 'contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema'));
    causes.push(fe.forbidden(fldPath, costErrorMessage('x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema', total.total, STATIC_ESTIMATED_CRD_COST_LIMIT)));
  }
  return { causes, rules: new RuleSet(root) };
}

/** Where the value being validated sits relative to the old object, for ratcheting. */
interface Correlation {
  /** The correlated old value of this node, when there is one. */
  current?: { old: unknown; value: unknown };
  /** The nearest correlated ancestor, when this node has none. */
  parent?: { old: unknown; value: unknown };
}

const shouldRatchet = (c: Correlation): boolean => {
  const pair = c.current ?? c.parent;
  return pair !== undefined && deepEqual(pair.old, pair.value);
};

const child = (parent: string, name: string): string => (parent === '' ? name : `${parent}.${name}`);

/** The old item of a list-type=map list with the same key values as `item`. */
function correlatedListItem(schema: Schema, oldList: unknown, item: unknown): unknown {
  if (schema['x-kubernetes-list-type'] !== 'map' || !Array.isArray(oldList) || !item || typeof item !== 'object') return undefined;
  const keys = Array.isArray(schema['x-kubernetes-list-map-keys']) ? (schema['x-kubernetes-list-map-keys'] as string[]) : [];
  const props = obj(obj(schema.items)?.properties) ?? {};
  const keyOf = (v: unknown): unknown[] => keys.map((k) => getMember(v as Record<string, unknown>, k) ?? obj(props[k])?.default);
  const wanted = keyOf(item);
  return oldList.find((o) => o && typeof o === 'object' && deepEqual(keyOf(o), wanted));
}

interface Run {
  remaining: number;
  causes: StatusCause[];
  warnings: string[];
}

const ruleErrorString = (r: ValidationRule): string => ((r.message ?? '').length > 0 ? (r.message as string).trim() : (r.rule ?? '').trim());
const ruleMessageOrDefault = (r: ValidationRule): string => ((r.message ?? '').length === 0 ? `failed rule: ${ruleErrorString(r)}` : (r.message as string).trim());

function causeForReason(path: string, value: unknown, detail: string, reason: string | undefined): StatusCause {
  switch (reason) {
    case 'FieldValueForbidden':
      return fe.forbidden(path, detail);
    case 'FieldValueRequired':
      return fe.required(path, detail);
    case 'FieldValueDuplicate':
      return fe.duplicate(path, value);
    default:
      return fe.invalid(path, value, detail);
  }
}

class RuleSet implements CompiledRules {
  readonly empty: boolean;
  constructor(private readonly root: NodeValidator | undefined) {
    this.empty = root === undefined;
  }

  validate(obj: Record<string, unknown>, old?: Record<string, unknown>): StatusCause[] {
    return this.validateWithWarnings(obj, old).causes;
  }

  validateWithWarnings(object: Record<string, unknown>, old?: Record<string, unknown>): { causes: StatusCause[]; warnings: string[] } {
    const run: Run = { remaining: RUNTIME_CEL_COST_BUDGET, causes: [], warnings: [] };
    if (this.root) {
      const correlation: Correlation = old !== undefined ? { current: { old, value: object } } : {};
      this.visit(this.root, '', object, old, correlation, run, true);
    }
    return { causes: run.causes, warnings: run.warnings };
  }

  /** Validator.validate: the node's rules, then its children; false once the budget is gone. */
  private visit(node: NodeValidator, path: string, value: unknown, old: unknown, correlation: Correlation, run: Run, isRoot = false): boolean {
    if (value === undefined || value === null) return true;
    if (old === null) old = undefined;
    if (!this.expressions(node, path, value, old, correlation, run, isRoot)) return false;
    if (Array.isArray(value)) {
      if (!node.items) return true;
      for (let i = 0; i < value.length; i++) {
        const oldItem = correlatedListItem(node.schema, old, value[i]);
        const c: Correlation = correlation.current
          ? { current: oldItem !== undefined ? { old: oldItem, value: value[i] } : undefined, parent: correlation.current }
          : correlation;
        if (!this.visit(node.items, `${path}[${i}]`, value[i], oldItem, c, run)) return false;
      }
      return true;
    }
    if (typeof value !== 'object') return true;
    const record = value as Record<string, unknown>;
    const oldRecord = old && typeof old === 'object' && !Array.isArray(old) && node.schema['x-kubernetes-map-type'] !== 'atomic' ? (old as Record<string, unknown>) : undefined;
    const correlate = (k: string): Correlation => {
      if (!correlation.current) return correlation;
      if (isRoot && (k === 'apiVersion' || k === 'kind')) return {};
      const oldV = oldRecord && getMember(oldRecord, k);
      return { current: oldV !== undefined ? { old: oldV, value: record[k] } : undefined, parent: correlation.current };
    };
    if (node.additionalProperties) {
      for (const k of Object.keys(record)) {
        if (!this.visit(node.additionalProperties, `${path}[${k}]`, record[k], oldRecord && getMember(oldRecord, k), correlate(k), run)) return false;
      }
    }
    for (const [k, sub] of node.properties) {
      if (!Object.prototype.hasOwnProperty.call(record, k)) continue;
      if (!this.visit(sub, child(path, k), record[k], oldRecord && getMember(oldRecord, k), correlate(k), run)) return false;
    }
    return true;
  }

  /** validateExpressions: false when evaluation must stop. */
  private expressions(node: NodeValidator, path: string, value: unknown, old: unknown, correlation: Correlation, run: Run, isRoot: boolean): boolean {
    if (node.rules.length === 0) return true;
    const fieldPath = path === '' ? '<nil>' : path;
    const type = typeof node.schema.type === 'string' ? node.schema.type : isRoot ? 'object' : '';
    if (run.remaining <= 0) {
      run.causes.push(fe.invalid(fieldPath, type, 'validation failed due to running out of cost budget, no further validation rules will be run'));
      return false;
    }
    // The CEL values are built once per node, and oldSelf only for a rule that reads it.
    let self: unknown;
    let oldSelf: unknown;
    const activationFor = (compiled: CompiledRule): Record<string, unknown> => {
      self ??= node.selfFields ? celFields(value, node.decl, node.selfFields) : celValue(value, node.decl);
      if (!compiled.usesOldSelf && !compiled.messageUsesOldSelf) return { self };
      if (old !== undefined) oldSelf ??= celValue(old, node.decl);
      if (compiled.rule.optionalOldSelf === true) return { self, oldSelf: old === undefined ? Optional.none() : Optional.of(oldSelf) };
      return old === undefined ? { self } : { self, oldSelf };
    };
    for (const compiled of node.rules) {
      const { rule } = compiled;
      if (!compiled.program) continue;
      const optional = rule.optionalOldSelf === true;
      if (compiled.usesOldSelf && old === undefined && !optional) continue;
      const activation = activationFor(compiled);
      const result = runMetered(PER_CALL_LIMIT, () => compiled.program?.(activation));
      if (result.cost > run.remaining) {
        run.causes.push(fe.invalid(fieldPath, type, 'validation failed due to running out of cost budget, no further validation rules will be run'));
        return false;
      }
      run.remaining -= result.cost;
      if (result.error !== undefined) {
        if (result.error instanceof CostLimitExceeded) {
          run.causes.push(fe.invalid(fieldPath, type, `'${COST_LIMIT_MESSAGE}': no further validation rules will be run due to call cost exceeds limit for rule: ${ruleErrorString(rule)}`));
          return false;
        }
        const text = celGoEvalError(result.error);
        if (text.startsWith('no such overload')) {
          run.causes.push(fe.invalid(fieldPath, type, `'${text}': call arguments did not match a supported operator, function or macro signature for rule: ${ruleErrorString(rule)}`));
        } else {
          run.causes.push(fe.invalid(fieldPath, type, `${text} evaluating rule: ${ruleErrorString(rule)}`));
        }
        continue;
      }
      if (result.value === true) continue;
      const at = compiled.fieldPath ? child(path, compiled.fieldPath) : fieldPath;
      const report = (cause: StatusCause): void => {
        if (!compiled.usesOldSelf && shouldRatchet(correlation)) run.warnings.push(`${cause.field}: ${cause.message}`);
        else run.causes.push(cause);
      };
      if (compiled.message) {
        const msg = runMetered(PER_CALL_LIMIT, () => compiled.message?.(activation));
        if (msg.cost > run.remaining) {
          report(fe.invalid(at, type, 'messageExpression evaluation failed due to running out of cost budget, no further validation rules will be run'));
          return false;
        }
        if (msg.error instanceof CostLimitExceeded) {
          report(fe.invalid(at, type, `no further validation rules will be run due to call cost exceeds limit for messageExpression: ${goQuote(rule.messageExpression ?? '')}`));
          return false;
        }
        run.remaining -= msg.cost;
        const text = typeof msg.value === 'string' ? msg.value.trim() : '';
        const usable = msg.error === undefined && typeof msg.value === 'string' && text !== '' && Buffer.byteLength(text) <= MAX_MESSAGE_EXPRESSION_BYTES && !/\n/.test(text);
        report(causeForReason(at, type, usable ? text : ruleMessageOrDefault(rule), rule.reason));
      } else {
        report(causeForReason(at, type, ruleMessageOrDefault(rule), rule.reason));
      }
    }
    return true;
  }
}

