// Named cell functions for printer columns that no JSONPath or CEL expression can compute
// (a spec names them with `printer:`). Each takes the object and the current time.

import { componentStatusPrinters } from './componentstatus.js';
import { endpointsPrinters } from './endpoints.js';
import { nodePrinters } from './node.js';
import { podPrinters } from './pod.js';

export type NamedPrinter = (obj: Record<string, unknown>, now: Date) => unknown;

export const PRINTERS: Record<string, NamedPrinter> = { ...podPrinters, ...nodePrinters, ...endpointsPrinters, ...componentStatusPrinters };
