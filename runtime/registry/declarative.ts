// Declarative validation (kube 1.33's DeclarativeValidation and DeclarativeValidationTakeover
// gates): some rules are both declared in a kind's spec (`declarative: true`) and still checked by
// hand in its strategy, whose causes for them are marked covered. With DeclarativeValidation on,
// both run and every disagreement is reported (logged and counted as
// declarative_validation_mismatch_total); the hand-written causes are answered. With takeover
// as well, the covered hand-written causes are dropped and the declared rules' causes answered
// instead. Takeover means nothing while DeclarativeValidation is off, as in kube, whose strategies
// look at takeover only inside the DeclarativeValidation branch. Kinds without declarative rules
// are not wrapped, so their writes pay nothing.

import type { StatusCause } from '../errors/status-error.js';
import type { KubeObject } from '../machinery/object.js';
import type { ResourceDefinition } from './definition.js';
import type { ResourceStrategies, Strategy } from './strategy.js';

/** Receives kube's text for each mismatch; the caller logs it and counts it. */
export type DeclarativeMismatchReporter = (detail: string) => void;

const covered = new WeakSet<StatusCause>();

/** Marks a hand-written cause as one a declarative rule also states (kube's MarkCoveredByDeclarative). */
export function coveredByDeclarative(cause: StatusCause): StatusCause {
  covered.add(cause);
  return cause;
}

export function isCoveredByDeclarative(cause: StatusCause): boolean {
  return covered.has(cause);
}

/** field.ErrorType's text for a cause reason, as kube renders it in mismatch messages. */
const ERROR_TYPES: Record<string, string> = {
  FieldValueNotFound: 'Not found',
  FieldValueRequired: 'Required value',
  FieldValueDuplicate: 'Duplicate value',
  FieldValueInvalid: 'Invalid value',
  FieldValueNotSupported: 'Unsupported value',
  FieldValueForbidden: 'Forbidden',
  FieldValueTooLong: 'Too long',
  FieldValueTooMany: 'Too many',
  InternalError: 'Internal error',
  FieldValueTypeInvalid: 'Invalid value',
};

function render(cause: StatusCause): string {
  return `{Type=${JSON.stringify(ERROR_TYPES[cause.reason ?? ''] ?? cause.reason ?? '')}, Field=${JSON.stringify(cause.field ?? '')}}`;
}

/** Errors match as kube's fuzzy matcher has them match: same type and same field. */
const sameError = (a: StatusCause, b: StatusCause): boolean => a.reason === b.reason && (a.field ?? '') === (b.field ?? '');

/**
 * kube's gatherDeclarativeValidationMismatches: each covered hand-written cause must match at
 * least one declarative cause (all it matches are used up), and no declarative cause may be
 * left over.
 */
export function declarativeMismatches(imperative: readonly StatusCause[], declarative: readonly StatusCause[], takeover: boolean): string[] {
  if (imperative.length === 0 && declarative.length === 0) return [];
  const advice = takeover
    ? 'Consider disabling the DeclarativeValidationTakeover feature gate to keep data persisted in etcd consistent with prior versions of Kubernetes.'
    : 'This difference should not affect system operation since hand written validation is authoritative.';
  const details: string[] = [];
  let remaining = [...declarative];
  for (const cause of imperative) {
    if (!isCoveredByDeclarative(cause)) continue;
    const left = remaining.filter((d) => !sameError(cause, d));
    if (left.length === remaining.length) {
      details.push(`Unexpected difference between hand written validation and declarative validation error results, unmatched error(s) found ${render(cause)}. This indicates an issue with declarative validation. ${advice}`);
    }
    remaining = left;
  }
  for (const cause of remaining) {
    details.push(`Unexpected difference between hand written validation and declarative validation error results, extra error(s) found ${render(cause)}. This indicates an issue with declarative validation. ${advice}`);
  }
  return details;
}

function decide(
  imperative: StatusCause[],
  runDeclarative: () => StatusCause[],
  enabled: (gate: string) => boolean,
  report: DeclarativeMismatchReporter,
): StatusCause[] {
  if (!enabled('DeclarativeValidation')) return imperative;
  const takeover = enabled('DeclarativeValidationTakeover');
  const declarative = runDeclarative();
  for (const detail of declarativeMismatches(imperative, declarative, takeover)) report(detail);
  return takeover ? [...imperative.filter((c) => !isCoveredByDeclarative(c)), ...declarative] : imperative;
}

function withDeclarative(strategy: Strategy, check: NonNullable<ResourceDefinition['validator']['validateDeclaratively']>, enabled: (gate: string) => boolean, report: DeclarativeMismatchReporter): Strategy {
  return {
    ...strategy,
    validate: (obj: KubeObject) => decide(strategy.validate(obj), () => check(obj), enabled, report),
    validateUpdate: (obj: KubeObject, old: KubeObject) => decide(strategy.validateUpdate(obj, old), () => check(obj, old), enabled, report),
  };
}

/** The kind's strategies with declarative validation around each, when its spec declares any. */
export function withDeclarativeValidation(
  def: ResourceDefinition,
  strategies: ResourceStrategies,
  enabled: (gate: string) => boolean,
  report: DeclarativeMismatchReporter,
): ResourceStrategies {
  const check = def.validator.validateDeclaratively?.bind(def.validator);
  if (!check) return strategies;
  const subresources = Object.fromEntries(Object.entries(strategies.subresources).map(([name, s]) => [name, withDeclarative(s, check, enabled, report)]));
  return { ...strategies, main: withDeclarative(strategies.main, check, enabled, report), subresources };
}
