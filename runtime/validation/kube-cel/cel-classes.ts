// cel-js's runtime classes for durations and unsigned integers, which its main entry does not
// export: taken from its evaluator entry (the same module its main entry runs), so that library
// functions can build and recognize them without evaluating CEL while the server loads.

import { Duration as CelDurationClass, UnsignedInt as CelUnsignedIntClass } from '@marcbachmann/cel-js/evaluator';

export interface CelDuration {
  readonly seconds: bigint;
  readonly nanos: number;
  valueOf(): number;
  addDuration(other: CelDuration): CelDuration;
  toString(): string;
}

export interface CelUnsignedInt {
  readonly value: bigint;
  valueOf(): bigint;
}

export const Duration = CelDurationClass as unknown as new (seconds: bigint, nanos?: number) => CelDuration;
export const UnsignedInt = CelUnsignedIntClass as unknown as new (value: bigint) => CelUnsignedInt;
