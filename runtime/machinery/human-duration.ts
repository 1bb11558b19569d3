// The Age column: k8s.io/apimachinery/pkg/util/duration.HumanDuration, about two significant
// figures of an elapsed time ("45s", "3m20s", "5h30m", "3d4h", "2y10d"). Clock skew of up to
// two seconds into the future still reads "0s"; more is "<invalid>".

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/** Formats an elapsed time in milliseconds; Go truncates every unit toward zero. */
export function humanDuration(ms: number): string {
  const seconds = Math.trunc(ms / SECOND);
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 60 * 2) return `${seconds}s`;
  const minutes = Math.trunc(ms / MINUTE);
  if (minutes < 10) {
    const s = seconds % 60;
    return s === 0 ? `${minutes}m` : `${minutes}m${s}s`;
  }
  if (minutes < 60 * 3) return `${minutes}m`;
  const hours = Math.trunc(ms / HOUR);
  if (hours < 8) {
    const m = minutes % 60;
    return m === 0 ? `${hours}h` : `${hours}h${m}m`;
  }
  if (hours < 48) return `${hours}h`;
  const days = Math.trunc(hours / 24);
  if (hours < 24 * 8) {
    const h = hours % 24;
    return h === 0 ? `${days}d` : `${days}d${h}h`;
  }
  if (hours < 24 * 365 * 2) return `${days}d`;
  const years = Math.trunc(days / 365);
  if (hours < 24 * 365 * 8) {
    const dy = days % 365;
    return dy === 0 ? `${years}y` : `${years}y${dy}d`;
  }
  return `${years}y`;
}

/**
 * The age of an RFC 3339 timestamp at `now`, as the printers show it: "<unknown>" for a missing
 * (zero) time, "<invalid>" for one that does not parse.
 */
export function ageOf(timestamp: unknown, now: Date): string {
  if (timestamp === undefined || timestamp === null || timestamp === '') return '<unknown>';
  const at = typeof timestamp === 'string' ? Date.parse(timestamp) : NaN;
  if (Number.isNaN(at)) return '<invalid>';
  return humanDuration(now.getTime() - at);
}
