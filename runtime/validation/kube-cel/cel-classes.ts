// cel-js's runtime classes for durations and unsigned integers, which its package does not
// export: taken from values it makes, so that library functions can build and recognize them.

import { evaluate } from '@marcbachmann/cel-js';

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

export const Duration = (evaluate('duration("1s")') as object).constructor as new (seconds: bigint, nanos?: number) => CelDuration;
export const UnsignedInt = (evaluate('1u') as object).constructor as new (value: bigint) => CelUnsignedInt;
