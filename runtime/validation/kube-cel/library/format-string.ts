// The strings extension's "<format>".format([args]) (cel-go ext/formatting.go): %s, %d, %f, %e,
// %b, %o, %x, %X and %%, with an optional precision for %f and %e (default 6).

import { Duration, UnsignedInt, type CelUnsignedInt } from '../cel-classes.js';

function isInt(v: unknown): v is bigint | CelUnsignedInt {
  return typeof v === 'bigint' || v instanceof UnsignedInt;
}

function formatDouble(v: number, precision: number, exp: boolean): string {
  if (Number.isNaN(v)) return 'NaN';
  if (v === Infinity) return 'Infinity';
  if (v === -Infinity) return '-Infinity';
  if (!exp) return v.toFixed(precision);
  const [mantissa, e] = v.toExponential(precision).split('e');
  const n = Number(e);
  return `${mantissa}e${n < 0 ? '-' : '+'}${String(Math.abs(n)).padStart(2, '0')}`;
}

/** The %s form of a value. */
export function stringOf(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'string') return v;
  if (typeof v === 'boolean' || typeof v === 'bigint' || v instanceof UnsignedInt) return String(v);
  if (typeof v === 'number') {
    if (Number.isNaN(v)) return 'NaN';
    if (!Number.isFinite(v)) return v > 0 ? 'Infinity' : '-Infinity';
    return String(v);
  }
  if (v instanceof Uint8Array) return Buffer.from(v).toString('utf8');
  if (v instanceof Date) return v.toISOString().replace('.000Z', 'Z');
  if (v instanceof Duration) return v.toString();
  if (Array.isArray(v)) return `[${v.map(stringOf).join(', ')}]`;
  if (v instanceof Map) {
    const entries = [...v].map(([k, x]) => `${stringOf(k)}: ${stringOf(x)}`).sort();
    return `{${entries.join(', ')}}`;
  }
  return String(v);
}

export function formatString(format: string, args: unknown[]): string {
  let out = '';
  let argIndex = 0;
  const next = (): unknown => {
    if (argIndex >= args.length) throw new Error(`index ${argIndex} out of range`);
    return args[argIndex++];
  };
  for (let i = 0; i < format.length; i++) {
    const c = format[i];
    if (c !== '%') {
      out += c;
      continue;
    }
    let j = i + 1;
    let precision: number | undefined;
    const m = /^\.(\d+)/.exec(format.slice(j));
    if (m) {
      precision = Number(m[1]);
      j += m[0].length;
    }
    const verb = format[j];
    i = j;
    switch (verb) {
      case '%':
        out += '%';
        break;
      case 's':
        out += stringOf(next());
        break;
      case 'd': {
        const v = next();
        if (!isInt(v)) throw new Error(`error during formatting: decimal clause can only be used on integers, was given ${typeName(v)}`);
        out += String(v);
        break;
      }
      case 'f':
      case 'e': {
        const v = next();
        if (typeof v !== 'number' && !isInt(v)) throw new Error(`error during formatting: ${verb === 'f' ? 'fixed-point' : 'scientific'} clause can only be used on doubles, was given ${typeName(v)}`);
        out += formatDouble(Number(v), precision ?? 6, verb === 'e');
        break;
      }
      case 'b':
      case 'o': {
        const v = next();
        const radix = verb === 'b' ? 2 : 8;
        if (typeof v === 'boolean' && verb === 'b') out += v ? '1' : '0';
        else if (isInt(v)) out += BigInt(v.valueOf() as bigint).toString(radix);
        else throw new Error(`error during formatting: ${verb === 'b' ? 'binary' : 'octal'} clause can only be used on integers, was given ${typeName(v)}`);
        break;
      }
      case 'x':
      case 'X': {
        const v = next();
        let hex: string;
        if (isInt(v)) {
          const n = BigInt(v.valueOf() as bigint);
          hex = n < 0n ? `-${(-n).toString(16)}` : n.toString(16);
        } else if (typeof v === 'string') hex = Buffer.from(v, 'utf8').toString('hex');
        else if (v instanceof Uint8Array) hex = Buffer.from(v).toString('hex');
        else throw new Error(`error during formatting: only integers, byte buffers, and strings can be formatted as hex, was given ${typeName(v)}`);
        out += verb === 'X' ? hex.toUpperCase() : hex;
        break;
      }
      default:
        throw new Error(`could not parse formatting clause: unrecognized formatting clause "${verb ?? ''}"`);
    }
  }
  return out;
}

function typeName(v: unknown): string {
  if (typeof v === 'number') return 'double';
  if (typeof v === 'string') return 'string';
  if (typeof v === 'boolean') return 'bool';
  if (Array.isArray(v)) return 'list';
  if (v instanceof Map) return 'map';
  if (v instanceof Uint8Array) return 'bytes';
  if (v === null) return 'null_type';
  return 'dyn';
}
