// The causes a value that fails a named format gets: a TooLong first where the format's length
// limit is one kube-apiserver reports on its own (driver names), then one Invalid per message.

import type { StatusCause } from '../errors/status-error.js';
import * as fe from './field-errors.js';
import { byteLength, FORMAT_CHECKS, FORMAT_MAX_BYTES } from '../machinery/formats.js';

export function formatCauses(format: string, field: string, value: string): StatusCause[] {
  const causes: StatusCause[] = [];
  const max = FORMAT_MAX_BYTES[format];
  if (max !== undefined && byteLength(value) > max) causes.push(fe.tooLong(field, max));
  for (const msg of FORMAT_CHECKS[format]?.(value) ?? []) causes.push(fe.invalid(field, value, msg));
  return causes;
}
