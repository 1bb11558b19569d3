// component-base/metrics' stability rules: every metric's help names its stability level, a
// deprecated metric's help says since when, and one deprecated long enough is hidden (not
// registered) unless --show-hidden-metrics-for-version asks for the previous minor's metrics.

import { serverVersion } from '../version.js';

export type StabilityLevel = 'ALPHA' | 'BETA' | 'STABLE';

export interface MetricOptions {
  name: string;
  help: string;
  stabilityLevel: StabilityLevel;
  /** The release that deprecated the metric, `major.minor.patch` as kube writes it. */
  deprecatedVersion?: string;
}

/** How many minor releases a deprecated metric stays shown (the spec's rule 11b, stable's three). */
export const HIDE_AFTER_MINORS = 3;

interface MinorVersion {
  major: number;
  minor: number;
}

function parseMinor(text: string): MinorVersion {
  const match = /^v?(\d+)\.(\d+)/.exec(text);
  if (!match) throw new Error(`invalid version ${JSON.stringify(text)}`);
  return { major: Number(match[1]), minor: Number(match[2]) };
}

export function currentMinor(): MinorVersion {
  return { major: Number(serverVersion.major), minor: Number.parseInt(serverVersion.minor, 10) };
}

/** The help text as kube serves it: `[STABLE] ...`, `[ALPHA] (Deprecated since 1.30.0) ...`. */
export function annotatedHelp(options: MetricOptions): string {
  const help = options.deprecatedVersion ? `(Deprecated since ${options.deprecatedVersion}) ${options.help}` : options.help;
  return `[${options.stabilityLevel}] ${help}`;
}

/** Whether the metric is left out of the registry in this release. */
export function isHidden(options: MetricOptions, showHidden: boolean, current: MinorVersion = currentMinor()): boolean {
  if (!options.deprecatedVersion || showHidden) return false;
  const deprecated = parseMinor(options.deprecatedVersion);
  if (deprecated.major !== current.major) return deprecated.major < current.major;
  return current.minor - deprecated.minor >= HIDE_AFTER_MINORS;
}

/**
 * kube's check of --show-hidden-metrics-for-version: empty, or exactly the previous minor version.
 * Returns the error text, or undefined when the value is acceptable.
 */
export function validateShowHiddenMetricsVersion(value: string, current: MinorVersion = currentMinor()): string | undefined {
  if (value === '') return undefined;
  const allowed = `${current.major}.${current.minor - 1}`;
  if (value === allowed) return undefined;
  return `--show-hidden-metrics-for-version must be omitted or have the value '${allowed}'. Only the previous minor version is allowed`;
}
