// The static cost estimate of a rule (cel-go checker/cost.go with kube's CostEstimator,
// apiserver pkg/cel/library/cost.go, and the CRD size estimator of compilation.go): the worst
// case of what evaluating the expression can cost, computed over the parsed tree with the size
// of every value taken from the schema (maxItems, maxProperties, maxLength, or how many fit in
// one request). Comprehensions cost their range's size times one iteration, string operations
// a tenth of a unit per character, regular expressions the input length times a quarter of the
// pattern length. Only the maximum is kept; kube's verdicts use only the maximum.

import type { DeclNode } from './decl.js';
import { isNode, type CelNode } from './runtime-cost.js';

/** math.MaxUint64: what cel-go saturates at, and the size of a value it knows nothing about. */
const MAX = 18446744073709551615;
const STRING_TRAVERSAL = 0.1;
const REGEX_LENGTH = 0.25;
const LIST_CREATE = 10;
const MAP_CREATE = 30;

const add = (...xs: number[]): number => Math.min(MAX, xs.reduce((a, b) => a + b, 0));
const mul = (a: number, b: number): number => (a === 0 || b === 0 ? 0 : Math.min(MAX, a * b));
const factor = (size: number, f: number): number => (size >= MAX ? MAX : Math.ceil(size * f));

interface Est {
  cost: number;
  /** Largest size (characters, elements) the value can have; MAX when unknown. */
  size: number;
  /** The schema declaration the value comes from, when known. */
  decl?: DeclNode;
  /** Known to be a scalar (size 1 in cel-go's terms when nothing else is known). */
  scalar?: boolean;
}

type Scope = Map<string, Est>;

const sizeOfDecl = (d: DeclNode | undefined): number | undefined => {
  if (!d) return undefined;
  switch (d.kind) {
    case 'int':
    case 'double':
    case 'bool':
      return 0;
    case 'object':
      return 0;
    default:
      return d.maxElements;
  }
};

function known(decl: DeclNode | undefined, cost: number): Est {
  const size = sizeOfDecl(decl);
  return { cost, size: size ?? MAX, decl };
}

/** Element of a list, value of a map. */
function elementOf(e: Est): Est {
  const d = e.decl?.kind === 'list' || e.decl?.kind === 'map' ? e.decl.elem : undefined;
  return known(d, 0);
}

/** The loop variable of a comprehension over `range`: list items, or map keys (kube declares keys without a size). */
function iterationVariable(range: Est): Est {
  if (range.decl?.kind === 'map') return { cost: 0, size: 0 };
  if (range.decl?.kind === 'list') return elementOf(range);
  return { cost: 0, size: MAX };
}

const literalSize = (v: unknown): Est => {
  if (typeof v === 'string') return { cost: 0, size: Array.from(v).length };
  if (v instanceof Uint8Array) return { cost: 0, size: v.length };
  return { cost: 0, size: 1, scalar: true };
};

const argsOf = (n: CelNode): unknown[] => (Array.isArray(n.args) ? (n.args as unknown[]) : []);

/** Size for comparisons: scalars and objects count as 1 when nothing else is known. */
const cmpSize = (e: Est): number => (e.scalar ? 1 : e.size);

class Estimator {
  /** The first presence test or optional selection of a field the schema does not declare. */
  undefinedField?: { node: CelNode; name: string };

  constructor(private readonly self: DeclNode) {}

  /** cel-go refuses has(x.f) and x.?f when x is an object without f; cel-js does not look. */
  private checkField(node: CelNode, decl: DeclNode | undefined, name: string): void {
    if (!this.undefinedField && decl?.kind === 'object' && !decl.fields?.has(name)) this.undefinedField = { node, name };
  }

  est(node: unknown, scope: Scope): Est {
    if (!isNode(node)) return { cost: 0, size: MAX };
    const a = argsOf(node);
    switch (node.op) {
      case 'value':
        return literalSize(node.args);
      case 'id': {
        const name = node.args as string;
        const local = scope.get(name);
        if (local) return { ...local, cost: 1 };
        if (name === 'self' || name === 'oldSelf') return known(this.self, 1);
        return { cost: 1, size: MAX };
      }
      case '.':
      case '.?': {
        const operand = this.est(a[0], scope);
        if (node.op === '.?') this.checkField(node, operand.decl, a[1] as string);
        if (operand.decl?.kind === 'map') {
          // kube's size estimator finds map values by index (`m['k']`), not by selection
          // (`m.k`): cel-go then knows only the type, a size of 1 for scalars and none otherwise.
          const scalar = ['int', 'double', 'bool', 'duration', 'timestamp'].includes(operand.decl.elem?.kind ?? '');
          return { cost: add(operand.cost, 1), size: scalar ? 1 : MAX, scalar };
        }
        return known(this.field(operand.decl, a[1] as string), add(operand.cost, 1));
      }
      case '[]':
      case '[?]': {
        const target = this.est(a[0], scope);
        const index = this.est(a[1], scope);
        const elem = elementOf(target);
        return { ...elem, cost: add(target.cost, index.cost, 1) };
      }
      case 'list': {
        const items = a.map((x) => this.est(x, scope));
        return { cost: add(LIST_CREATE, ...items.map((i) => i.cost)), size: items.length };
      }
      case 'map': {
        const entries = (a as unknown[][]).flatMap((pair) => pair.map((x) => this.est(x, scope)));
        return { cost: add(MAP_CREATE, ...entries.map((i) => i.cost)), size: entries.length / 2 };
      }
      case '&&':
      case '||': {
        const [l, r] = [this.est(a[0], scope), this.est(a[1], scope)];
        return { cost: add(l.cost, r.cost), size: 1, scalar: true };
      }
      case '?:': {
        const [c, t, f] = [this.est(a[0], scope), this.est(a[1], scope), this.est(a[2], scope)];
        return { cost: add(c.cost, Math.max(t.cost, f.cost)), size: Math.max(t.size, f.size), decl: t.decl ?? f.decl };
      }
      case '!_':
      case '-_': {
        // cel-go's parser reads `-1.0` as one literal.
        if (node.op === '-_' && isNode(node.args) && node.args.op === 'value') return { cost: 0, size: 1, scalar: true };
        const x = this.est(node.args, scope);
        return { cost: add(x.cost, 1), size: 1, scalar: true };
      }
      case '==':
      case '!=':
      case '<':
      case '<=':
      case '>':
      case '>=': {
        const [l, r] = [this.est(a[0], scope), this.est(a[1], scope)];
        const smallest = Math.min(cmpSize(l), cmpSize(r));
        return { cost: add(factor(smallest, STRING_TRAVERSAL), l.cost, r.cost), size: 1, scalar: true };
      }
      case 'in': {
        const [l, r] = [this.est(a[0], scope), this.est(a[1], scope)];
        return { cost: add(r.size, l.cost, r.cost), size: 1, scalar: true };
      }
      case '+': {
        const [l, r] = [this.est(a[0], scope), this.est(a[1], scope)];
        const size = add(l.size, r.size);
        const isList = l.decl?.kind === 'list' || r.decl?.kind === 'list' || (this.isListLiteral(a[0]) && this.isListLiteral(a[1]));
        const stringy = !l.scalar && !r.scalar && !isList;
        return { cost: add(stringy ? factor(size, STRING_TRAVERSAL) : 1, l.cost, r.cost), size: l.scalar && r.scalar ? 1 : size, scalar: l.scalar && r.scalar, decl: isList ? (l.decl ?? r.decl) : undefined };
      }
      case '-':
      case '*':
      case '/':
      case '%': {
        const [l, r] = [this.est(a[0], scope), this.est(a[1], scope)];
        return { cost: add(1, l.cost, r.cost), size: 1, scalar: true };
      }
      case 'call':
        return this.call(a[0] as string, undefined, (a[1] as unknown[]) ?? [], scope);
      case 'rcall':
        return this.call(a[0] as string, a[1], (a[2] as unknown[]) ?? [], scope);
      default:
        return { cost: 1, size: MAX };
    }
  }

  private isListLiteral(n: unknown): boolean {
    return isNode(n) && n.op === 'list';
  }

  private field(decl: DeclNode | undefined, name: string): DeclNode | undefined {
    if (!decl) return undefined;
    if (decl.kind === 'object') return decl.fields?.get(name)?.decl;
    if (decl.kind === 'map') return decl.elem;
    return undefined;
  }

  /** A comprehension macro: range cost, plus the range size times one iteration's cost. */
  private comprehension(name: string, receiver: unknown, args: unknown[], scope: Scope): Est | undefined {
    const iterName = isNode(args[0]) && args[0].op === 'id' ? (args[0].args as string) : undefined;
    if (!iterName) return undefined;
    const range = this.est(receiver, scope);
    const inner = new Map(scope);
    inner.set(iterName, iterationVariable(range));
    const n = range.size;
    const part = (i: number): Est => this.est(args[i], inner);
    switch (name) {
      case 'all':
        return { cost: add(range.cost, 1, mul(n, add(3, part(1).cost))), size: 1, scalar: true };
      case 'exists':
        return { cost: add(range.cost, 1, mul(n, add(4, part(1).cost))), size: 1, scalar: true };
      case 'exists_one':
        return { cost: add(range.cost, 2, mul(n, add(2, part(1).cost))), size: 1, scalar: true };
      case 'map': {
        const step = args.length === 3 ? add(part(1).cost, Math.max(add(12, part(2).cost), 1)) : add(12, part(1).cost);
        return { cost: add(range.cost, LIST_CREATE, 1, mul(n, step)), size: n };
      }
      case 'filter':
        return { cost: add(range.cost, LIST_CREATE, 1, mul(n, add(13, part(1).cost))), size: n, decl: range.decl };
      default:
        return undefined;
    }
  }

  private call(name: string, receiver: unknown, args: unknown[], scope: Scope): Est {
    if (receiver !== undefined && ['all', 'exists', 'exists_one', 'map', 'filter'].includes(name)) {
      const c = this.comprehension(name, receiver, args, scope);
      if (c) return c;
    }
    if (name === 'has' && receiver === undefined) {
      // Presence tests cost nothing beyond their operand (PresenceTestHasCost(false)).
      const sel = args[0];
      const operand = isNode(sel) && sel.op === '.' ? this.est(argsOf(sel)[0], scope) : this.est(sel, scope);
      if (isNode(sel) && sel.op === '.') this.checkField(sel, operand.decl, argsOf(sel)[1] as string);
      return { cost: operand.cost, size: 1, scalar: true };
    }
    if (name === 'bind' && isNode(receiver) && receiver.op === 'id' && receiver.args === 'cel' && isNode(args[0])) {
      const init = this.est(args[1], scope);
      const inner = new Map(scope);
      inner.set(args[0].args as string, { ...init, cost: 0 });
      const body = this.est(args[2], inner);
      return { ...body, cost: add(init.cost, body.cost) };
    }
    const target = receiver !== undefined ? this.est(receiver, scope) : undefined;
    const ests = args.map((x) => this.est(x, scope));
    const argCost = add(...ests.map((e) => e.cost), target?.cost ?? 0);
    const arg0 = ests[0];
    const t = target;
    const result = (cost: number, size = 1, extra: Partial<Est> = {}): Est => ({ cost: add(cost, argCost), size, ...extra });
    switch (name) {
      case 'size':
        return result(1, 1, { scalar: true });
      case 'startsWith':
      case 'endsWith':
        return result(arg0 ? factor(arg0.size, STRING_TRAVERSAL) : 1, 1, { scalar: true });
      case 'contains':
        if (t && arg0) return result(mul(factor(t.size, STRING_TRAVERSAL), factor(arg0.size, STRING_TRAVERSAL)), 1, { scalar: true });
        break;
      case 'matches': {
        const subject = t ?? ests[0];
        const pattern = t ? arg0 : ests[1];
        if (subject && pattern) return result(mul(factor(add(subject.size, 1), STRING_TRAVERSAL), factor(pattern.size, REGEX_LENGTH)), 1, { scalar: true });
        break;
      }
      case 'find':
      case 'findAll':
        if (t && arg0) return result(mul(factor(add(t.size, 1), STRING_TRAVERSAL), factor(arg0.size, REGEX_LENGTH)), t.size);
        break;
      case 'isSorted':
      case 'sum':
      case 'max':
      case 'min':
      case 'indexOf':
      case 'lastIndexOf':
        if (t) {
          if (t.decl?.kind === 'list') {
            const el = elementOf(t);
            const stringy = el.decl?.kind === 'string' || el.decl?.kind === 'bytes';
            return result(mul(t.size, add(1, stringy ? factor(el.size, STRING_TRAVERSAL) : 0)), el.size, { decl: el.decl, scalar: !stringy });
          }
          return result(factor(t.size, STRING_TRAVERSAL), 1, { scalar: true });
        }
        break;
      case 'url':
        if (arg0) return result(factor(arg0.size, STRING_TRAVERSAL), arg0.size);
        break;
      case 'lowerAscii':
      case 'upperAscii':
      case 'substring':
      case 'trim':
        if (t) return result(factor(t.size, STRING_TRAVERSAL), t.size);
        break;
      case 'replace':
        if (t && ests.length >= 2) {
          const [from, to] = [ests[0], ests[1]];
          const size = from.size === 0 ? add(mul(add(t.size, 1), to.size), t.size) : to.size <= from.size ? t.size : mul(Math.ceil(t.size / Math.max(1, from.size)), to.size);
          return result(factor(t.size, 2 * STRING_TRAVERSAL), size);
        }
        break;
      case 'split':
        if (t) return result(factor(t.size, 2 * STRING_TRAVERSAL), t.size);
        break;
      case 'join':
        if (t) {
          const el = elementOf(t);
          let size = mul(t.size, el.size);
          if (arg0) size = add(size, mul(arg0.size, Math.max(0, t.size - 1)));
          return result(factor(size, STRING_TRAVERSAL), size);
        }
        break;
      case 'cidr':
      case 'isIP':
      case 'isCIDR':
      case 'quantity':
      case 'isQuantity':
        if (arg0) return result(factor(arg0.size, STRING_TRAVERSAL));
        break;
      case 'ip':
        if (t) return result(1);
        if (arg0) return result(factor(arg0.size, STRING_TRAVERSAL));
        break;
      case 'isCanonical':
        if (arg0) return result(factor(arg0.size, 2 * STRING_TRAVERSAL));
        break;
      case 'containsIP':
        return result(add(factor(32, STRING_TRAVERSAL), arg0 && !arg0.scalar && arg0.size !== MAX ? factor(arg0.size, STRING_TRAVERSAL) : 0));
      case 'containsCIDR':
        return result(add(factor(32, STRING_TRAVERSAL), factor(16, STRING_TRAVERSAL), 1));
      case 'validate':
        if (arg0) return result(factor(factor(arg0.size, STRING_TRAVERSAL), 128 * REGEX_LENGTH));
        break;
      case 'charAt':
      case 'quote':
        if (arg0 && name === 'quote') return result(factor(arg0.size, STRING_TRAVERSAL), add(mul(arg0.size, 2), 2));
        if (t) return result(factor(t.size, STRING_TRAVERSAL), 1);
        break;
      case 'format':
        if (t) return result(factor(t.size, STRING_TRAVERSAL), MAX);
        break;
      case 'string':
      case 'bytes':
        if (arg0 && !arg0.scalar) return result(factor(arg0.size, STRING_TRAVERSAL), arg0.size);
        break;
    }
    return result(1);
  }
}

export interface Analysis {
  /** The estimated maximum cost. */
  cost: number;
  /** A field that has() or `.?` names on an object that does not declare it. */
  undefinedField?: { node: CelNode; name: string };
}

/** The estimated maximum cost of a parsed rule over a node declared as `self`, and what cel-go's checker would refuse beyond cel-js's. */
export function analyzeRule(ast: unknown, self: DeclNode): Analysis {
  const estimator = new Estimator(self);
  const cost = estimator.est(ast, new Map()).cost;
  return { cost, undefinedField: estimator.undefinedField };
}
