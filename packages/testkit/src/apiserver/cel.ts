// A small evaluator for the subset of CEL that CRD `x-kubernetes-validations` rules use. It parses
// every rule when the CRD is loaded and refuses, with CelUnsupportedError, any construct it does
// not evaluate, so a rule can never silently pass. The README lists what is supported.
import { FabrikError } from '@fabrik/api';
import { deepEqual, isObject, type JsonValue } from './json.js';

export class CelUnsupportedError extends FabrikError<'CEL_UNSUPPORTED'> {
  override readonly name = 'CelUnsupportedError';
  constructor(rule: string, what: string) {
    super(
      'CEL_UNSUPPORTED',
      `CEL rule ${JSON.stringify(rule)}: ${what} is not supported by the test API server`,
    );
  }
}

/** A rule failed to evaluate (no such key, wrong type): kube reports these as invalid too. */
export class CelEvalError extends FabrikError<'CEL_EVAL'> {
  override readonly name = 'CelEvalError';
  constructor(message: string) {
    super('CEL_EVAL', message);
  }
}

type Node =
  | { kind: 'lit'; value: CelValue }
  | { kind: 'ident'; name: string }
  | { kind: 'list'; items: Node[] }
  | { kind: 'map'; entries: [Node, Node][] }
  | { kind: 'select'; target: Node; field: string }
  | { kind: 'index'; target: Node; index: Node }
  | { kind: 'unary'; op: '!' | '-'; arg: Node }
  | { kind: 'binary'; op: string; left: Node; right: Node }
  | { kind: 'cond'; test: Node; then: Node; else: Node }
  | { kind: 'call'; name: string; target: Node | undefined; args: Node[] }
  | { kind: 'has'; target: Node; field: string }
  | { kind: 'comprehension'; macro: string; target: Node; variable: string; body: Node };

class IpValue {
  constructor(
    readonly family: 4 | 6,
    readonly bits: bigint,
  ) {}
}
class CidrValue {
  constructor(
    readonly ip: IpValue,
    readonly prefix: number,
  ) {}
}
type CelValue = JsonValue | IpValue | CidrValue;

const MACROS = new Set(['all', 'exists', 'exists_one', 'map', 'filter']);
const GLOBAL_FUNCTIONS = new Set([
  'size',
  'int',
  'uint',
  'double',
  'string',
  'isIP',
  'ip',
  'isCIDR',
  'cidr',
  'matches',
]);
const METHODS = new Set([
  'size',
  'startsWith',
  'endsWith',
  'contains',
  'matches',
  'lowerAscii',
  'upperAscii',
  'trim',
  'split',
  'join',
  'family',
  'containsIP',
  'containsCIDR',
  'prefixLength',
  'ip',
  'masked',
  'isUnspecified',
  'isLoopback',
]);
const IDENTIFIERS = new Set(['self', 'oldSelf']);

type Token = { type: 'num' | 'str' | 'id' | 'op'; text: string; value?: CelValue };

function tokenize(rule: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < rule.length) {
    const ch = rule[i]!;
    if (/\s/.test(ch)) {
      i++;
      continue;
    }
    const rest = rule.slice(i);
    const num = /^(0x[0-9a-fA-F]+|[0-9]+(\.[0-9]+)?([eE][+-]?[0-9]+)?)(u|U)?/.exec(rest);
    if (num) {
      const isDouble = num[2] !== undefined || num[3] !== undefined;
      tokens.push({ type: 'num', text: num[0], value: isDouble ? Number(num[1]) : Number(num[1]) });
      i += num[0].length;
      continue;
    }
    const str = /^(r|R)?("""[\s\S]*?"""|'''[\s\S]*?'''|"(\\.|[^"\\])*"|'(\\.|[^'\\])*')/.exec(rest);
    if (str) {
      const raw = str[1] !== undefined;
      const quoted = str[2]!;
      const q = quoted.startsWith('"""') || quoted.startsWith("'''") ? 3 : 1;
      const body = quoted.slice(q, -q);
      const value = raw
        ? body
        : body.replace(/\\(.)/g, (_, c: string) => ({ n: '\n', t: '\t', r: '\r', '\\': '\\' })[c] ?? c);
      tokens.push({ type: 'str', text: str[0], value });
      i += str[0].length;
      continue;
    }
    const id = /^[A-Za-z_][A-Za-z0-9_]*/.exec(rest);
    if (id) {
      tokens.push({ type: 'id', text: id[0] });
      i += id[0].length;
      continue;
    }
    const op = /^(==|!=|<=|>=|&&|\|\||[-+*/%<>!?:.,()[\]{}])/.exec(rest);
    if (!op) throw new Error(`unexpected character ${JSON.stringify(ch)} at ${i}`);
    tokens.push({ type: 'op', text: op[0] });
    i += op[0].length;
  }
  return tokens;
}

const BINARY_PRECEDENCE: Record<string, number> = {
  '||': 1,
  '&&': 2,
  '==': 3,
  '!=': 3,
  '<': 3,
  '<=': 3,
  '>': 3,
  '>=': 3,
  in: 3,
  '+': 4,
  '-': 4,
  '*': 5,
  '/': 5,
  '%': 5,
};

class Parser {
  private pos = 0;
  /** Variables bound by the macros being parsed (`n` in `self.names.all(n, ...)`). */
  private readonly bound: string[] = [];
  constructor(
    private readonly rule: string,
    private readonly tokens: Token[],
  ) {}

  parse(): Node {
    const node = this.expression();
    if (this.pos < this.tokens.length) throw this.unsupported(`token ${JSON.stringify(this.peek()?.text)}`);
    return node;
  }

  private unsupported(what: string): CelUnsupportedError {
    return new CelUnsupportedError(this.rule, what);
  }

  private peek(): Token | undefined {
    return this.tokens[this.pos];
  }

  private accept(text: string): boolean {
    const t = this.peek();
    if (t && (t.type === 'op' || t.type === 'id') && t.text === text) {
      this.pos++;
      return true;
    }
    return false;
  }

  private expect(text: string): void {
    if (!this.accept(text)) throw this.unsupported(`expected ${JSON.stringify(text)}`);
  }

  private expression(): Node {
    const test = this.binary(1);
    if (!this.accept('?')) return test;
    const then = this.expression();
    this.expect(':');
    return { kind: 'cond', test, then, else: this.expression() };
  }

  private binary(minPrecedence: number): Node {
    let left = this.unary();
    for (;;) {
      const t = this.peek();
      const precedence = t ? BINARY_PRECEDENCE[t.text] : undefined;
      if (
        !t ||
        precedence === undefined ||
        precedence < minPrecedence ||
        t.type === 'str' ||
        t.type === 'num'
      ) {
        return left;
      }
      this.pos++;
      const right = this.binary(precedence + 1);
      left = { kind: 'binary', op: t.text, left, right };
    }
  }

  private unary(): Node {
    if (this.accept('!')) return { kind: 'unary', op: '!', arg: this.unary() };
    if (this.accept('-')) return { kind: 'unary', op: '-', arg: this.unary() };
    return this.postfix(this.primary());
  }

  private args(): Node[] {
    const args: Node[] = [];
    if (this.accept(')')) return args;
    do args.push(this.expression());
    while (this.accept(','));
    this.expect(')');
    return args;
  }

  private postfix(node: Node): Node {
    for (;;) {
      if (this.accept('.')) {
        const name = this.peek();
        if (!name || name.type !== 'id') throw this.unsupported('a field selection without a name');
        this.pos++;
        if (this.accept('(')) {
          if (MACROS.has(name.text)) {
            const variable = this.peek();
            if (!variable || variable.type !== 'id')
              throw this.unsupported(`macro ${name.text} without a variable`);
            this.pos++;
            this.expect(',');
            this.bound.push(variable.text);
            const body = this.expression();
            this.bound.pop();
            this.expect(')');
            node = { kind: 'comprehension', macro: name.text, target: node, variable: variable.text, body };
          } else {
            if (!METHODS.has(name.text)) throw this.unsupported(`function ${name.text}()`);
            node = { kind: 'call', name: name.text, target: node, args: this.args() };
          }
        } else node = { kind: 'select', target: node, field: name.text };
      } else if (this.accept('[')) {
        const index = this.expression();
        this.expect(']');
        node = { kind: 'index', target: node, index };
      } else return node;
    }
  }

  private primary(): Node {
    const t = this.peek();
    if (!t) throw this.unsupported('an incomplete expression');
    this.pos++;
    if (t.type === 'num' || t.type === 'str') return { kind: 'lit', value: t.value ?? null };
    if (t.type === 'id') {
      if (t.text === 'true' || t.text === 'false') return { kind: 'lit', value: t.text === 'true' };
      if (t.text === 'null') return { kind: 'lit', value: null };
      if (this.accept('(')) {
        if (t.text === 'has') {
          const arg = this.expression();
          this.expect(')');
          if (arg.kind !== 'select') throw this.unsupported('has() of something other than a field');
          return { kind: 'has', target: arg.target, field: arg.field };
        }
        if (!GLOBAL_FUNCTIONS.has(t.text)) throw this.unsupported(`function ${t.text}()`);
        return { kind: 'call', name: t.text, target: undefined, args: this.args() };
      }
      if (!IDENTIFIERS.has(t.text) && !this.bound.includes(t.text))
        throw this.unsupported(`identifier ${t.text}`);
      return { kind: 'ident', name: t.text };
    }
    if (t.text === '(') {
      const inner = this.expression();
      this.expect(')');
      return inner;
    }
    if (t.text === '[') {
      const items: Node[] = [];
      if (!this.accept(']')) {
        do items.push(this.expression());
        while (this.accept(','));
        this.expect(']');
      }
      return { kind: 'list', items };
    }
    if (t.text === '{') {
      const entries: [Node, Node][] = [];
      if (!this.accept('}')) {
        do {
          const key = this.expression();
          this.expect(':');
          entries.push([key, this.expression()]);
        } while (this.accept(','));
        this.expect('}');
      }
      return { kind: 'map', entries };
    }
    throw this.unsupported(`token ${JSON.stringify(t.text)}`);
  }
}

export function parseIp(text: string): IpValue | undefined {
  if (/^\d{1,3}(\.\d{1,3}){3}$/.test(text)) {
    const parts = text.split('.').map(Number);
    if (parts.some((p) => p > 255) || text.split('.').some((p) => p.length > 1 && p.startsWith('0')))
      return undefined;
    return new IpValue(
      4,
      parts.reduce((acc, p) => (acc << 8n) | BigInt(p), 0n),
    );
  }
  if (!text.includes(':') || text.includes('%') || text.includes('.')) return undefined;
  const halves = text.split('::');
  if (halves.length > 2) return undefined;
  const groups = (s: string): string[] => (s === '' ? [] : s.split(':'));
  const head = groups(halves[0]!);
  const tail = halves.length === 2 ? groups(halves[1]!) : [];
  const missing = 8 - head.length - tail.length;
  if ((halves.length === 1 && missing !== 0) || missing < 0) return undefined;
  const all = [...head, ...Array<string>(halves.length === 2 ? missing : 0).fill('0'), ...tail];
  if (all.some((g) => !/^[0-9a-fA-F]{1,4}$/.test(g))) return undefined;
  return new IpValue(
    6,
    all.reduce((acc, g) => (acc << 16n) | BigInt(parseInt(g, 16)), 0n),
  );
}

export function parseCidr(text: string): CidrValue | undefined {
  const [addr, prefix, extra] = text.split('/');
  if (addr === undefined || prefix === undefined || extra !== undefined || !/^\d{1,3}$/.test(prefix))
    return undefined;
  const ip = parseIp(addr);
  const length = Number(prefix);
  if (!ip || length > (ip.family === 4 ? 32 : 128)) return undefined;
  return new CidrValue(ip, length);
}

function maskOf(family: 4 | 6, prefix: number): bigint {
  const width = BigInt(family === 4 ? 32 : 128);
  return ((1n << width) - 1n) ^ ((1n << (width - BigInt(prefix))) - 1n);
}

function formatIp(ip: IpValue): string {
  if (ip.family === 4) return [24n, 16n, 8n, 0n].map((s) => String((ip.bits >> s) & 255n)).join('.');
  const groups = Array.from({ length: 8 }, (_, i) =>
    ((ip.bits >> BigInt(112 - 16 * i)) & 0xffffn).toString(16),
  );
  return groups.join(':').replace(/(^|:)0(:0)+(:|$)/, '::');
}

function typeName(value: CelValue | undefined): string {
  if (value instanceof IpValue) return 'net.IP';
  if (value instanceof CidrValue) return 'net.CIDR';
  if (Array.isArray(value)) return 'list';
  if (isObject(value)) return 'map';
  if (value === null) return 'null_type';
  return typeof value;
}

function fail(message: string): never {
  throw new CelEvalError(message);
}

function asString(value: CelValue, fn: string): string {
  return typeof value === 'string' ? value : fail(`no such overload: ${fn}(${typeName(value)})`);
}

function asNumber(value: CelValue, op: string): number {
  return typeof value === 'number' ? value : fail(`no such overload: ${typeName(value)} ${op}`);
}

function equal(a: CelValue, b: CelValue): boolean {
  if (a instanceof IpValue || b instanceof IpValue) {
    return a instanceof IpValue && b instanceof IpValue && a.family === b.family && a.bits === b.bits;
  }
  if (a instanceof CidrValue || b instanceof CidrValue) {
    return a instanceof CidrValue && b instanceof CidrValue && a.prefix === b.prefix && equal(a.ip, b.ip);
  }
  return deepEqual(a, b);
}

type Scope = ReadonlyMap<string, CelValue>;

function evaluate(node: Node, scope: Scope): CelValue {
  switch (node.kind) {
    case 'lit':
      return node.value;
    case 'ident': {
      if (!scope.has(node.name)) fail(`undeclared reference to '${node.name}'`);
      return scope.get(node.name)!;
    }
    case 'list':
      return node.items.map((n) => evaluate(n, scope) as JsonValue);
    case 'map':
      return Object.fromEntries(
        node.entries.map(([k, v]) => [
          asString(evaluate(k, scope), 'map key'),
          evaluate(v, scope) as JsonValue,
        ]),
      );
    case 'select': {
      const target = evaluate(node.target, scope);
      if (!isObject(target)) fail(`no such key: ${node.field}`);
      const value = target[node.field];
      return value === undefined ? fail(`no such key: ${node.field}`) : value;
    }
    case 'has': {
      const target = evaluate(node.target, scope);
      return isObject(target) ? target[node.field] !== undefined : fail(`invalid type for field selection`);
    }
    case 'index': {
      const target = evaluate(node.target, scope);
      const index = evaluate(node.index, scope);
      if (Array.isArray(target) && typeof index === 'number') {
        return target[index] ?? fail(`index out of range: ${index}`);
      }
      if (isObject(target) && typeof index === 'string')
        return target[index] ?? fail(`no such key: ${index}`);
      return fail(`no such overload: ${typeName(target)}[${typeName(index)}]`);
    }
    case 'unary': {
      const arg = evaluate(node.arg, scope);
      if (node.op === '!')
        return typeof arg === 'boolean' ? !arg : fail(`no such overload: !${typeName(arg)}`);
      return -asNumber(arg, 'negation');
    }
    case 'cond': {
      const test = evaluate(node.test, scope);
      if (typeof test !== 'boolean') fail('conditional needs a bool');
      return evaluate(test ? node.then : node.else, scope);
    }
    case 'binary':
      return evaluateBinary(node.op, node.left, node.right, scope);
    case 'comprehension':
      return evaluateMacro(node.macro, evaluate(node.target, scope), node.variable, node.body, scope);
    case 'call':
      return evaluateCall(
        node.name,
        node.target === undefined ? undefined : evaluate(node.target, scope),
        node.args.map((a) => evaluate(a, scope)),
      );
  }
}

function evaluateBinary(op: string, leftNode: Node, rightNode: Node, scope: Scope): CelValue {
  if (op === '&&' || op === '||') {
    // CEL's logical operators are commutative over errors: false && error is false.
    const short = op === '||';
    let leftError: unknown;
    try {
      const left = evaluate(leftNode, scope);
      if (left === short) return short;
      if (typeof left !== 'boolean') fail(`no such overload: ${typeName(left)} ${op}`);
    } catch (err) {
      leftError = err;
    }
    const right = evaluate(rightNode, scope);
    if (right === short) return short;
    if (typeof right !== 'boolean') fail(`no such overload: ${op} ${typeName(right)}`);
    if (leftError !== undefined) throw leftError;
    return !short;
  }
  const left = evaluate(leftNode, scope);
  const right = evaluate(rightNode, scope);
  switch (op) {
    case '==':
      return equal(left, right);
    case '!=':
      return !equal(left, right);
    case 'in':
      if (Array.isArray(right)) return right.some((item) => equal(item, left));
      if (isObject(right)) return right[asString(left, 'in')] !== undefined;
      return fail(`no such overload: in ${typeName(right)}`);
    case '+':
      if (typeof left === 'string' && typeof right === 'string') return left + right;
      if (Array.isArray(left) && Array.isArray(right)) return [...left, ...right];
      return asNumber(left, op) + asNumber(right, op);
    case '-':
      return asNumber(left, op) - asNumber(right, op);
    case '*':
      return asNumber(left, op) * asNumber(right, op);
    case '/': {
      const divisor = asNumber(right, op);
      if (divisor === 0) fail('division by zero');
      const q = asNumber(left, op) / divisor;
      return Number.isInteger(left) && Number.isInteger(right) ? Math.trunc(q) : q;
    }
    case '%': {
      const divisor = asNumber(right, op);
      if (divisor === 0) fail('modulus by zero');
      return asNumber(left, op) % divisor;
    }
    default: {
      if (typeof left === 'string' && typeof right === 'string')
        return compare(op, left < right ? -1 : left > right ? 1 : 0);
      return compare(op, asNumber(left, op) - asNumber(right, op));
    }
  }
}

function compare(op: string, difference: number): boolean {
  if (op === '<') return difference < 0;
  if (op === '<=') return difference <= 0;
  if (op === '>') return difference > 0;
  return difference >= 0;
}

function evaluateMacro(
  macro: string,
  target: CelValue,
  variable: string,
  body: Node,
  scope: Scope,
): CelValue {
  const items: JsonValue[] = Array.isArray(target)
    ? target
    : isObject(target)
      ? Object.keys(target)
      : fail(`${macro}() needs a list or a map`);
  const results = items.map((item) => evaluate(body, new Map([...scope, [variable, item]])));
  const bools = (): boolean[] =>
    results.map((r) => (typeof r === 'boolean' ? r : fail(`${macro}() predicate must return a bool`)));
  switch (macro) {
    case 'all':
      return bools().every(Boolean);
    case 'exists':
      return bools().some(Boolean);
    case 'exists_one':
      return bools().filter(Boolean).length === 1;
    case 'map':
      return results as JsonValue[];
    default:
      return items.filter((_, i) => bools()[i]);
  }
}

function toIp(value: CelValue): IpValue {
  if (value instanceof IpValue) return value;
  const ip = parseIp(asString(value, 'ip'));
  return ip ?? fail(`IP Address ${JSON.stringify(value)} parse error during conversion from string`);
}

function evaluateCall(name: string, target: CelValue | undefined, args: CelValue[]): CelValue {
  const subject = target !== undefined ? target : args.shift();
  if (subject === undefined) fail(`${name}() needs an argument`);
  const arg = args[0];
  switch (name) {
    case 'size':
      if (typeof subject === 'string') return [...subject].length;
      if (Array.isArray(subject)) return subject.length;
      if (isObject(subject)) return Object.keys(subject).length;
      return fail(`no such overload: size(${typeName(subject)})`);
    case 'int':
    case 'uint':
      return typeof subject === 'string' ? Math.trunc(Number(subject)) : Math.trunc(asNumber(subject, name));
    case 'double':
      return Number(subject);
    case 'string':
      return typeof subject === 'string'
        ? subject
        : subject instanceof IpValue
          ? formatIp(subject)
          : JSON.stringify(subject);
    case 'startsWith':
      return asString(subject, name).startsWith(asString(arg ?? null, name));
    case 'endsWith':
      return asString(subject, name).endsWith(asString(arg ?? null, name));
    case 'contains':
      return asString(subject, name).includes(asString(arg ?? null, name));
    case 'matches':
      return new RegExp(asString(arg ?? null, name)).test(asString(subject, name));
    case 'lowerAscii':
      return asString(subject, name).toLowerCase();
    case 'upperAscii':
      return asString(subject, name).toUpperCase();
    case 'trim':
      return asString(subject, name).trim();
    case 'split':
      return asString(subject, name).split(asString(arg ?? null, name));
    case 'join':
      return Array.isArray(subject)
        ? subject.map((s) => asString(s, name)).join(arg === undefined ? '' : asString(arg, name))
        : fail('join() needs a list');
    case 'isIP':
      return parseIp(asString(subject, name)) !== undefined;
    case 'isCIDR':
      return parseCidr(asString(subject, name)) !== undefined;
    case 'ip':
      if (subject instanceof CidrValue) return subject.ip;
      return toIp(subject);
    case 'cidr':
      return (
        parseCidr(asString(subject, name)) ??
        fail(`network address parse error during conversion from string`)
      );
    case 'family':
      return toIp(subject).family;
    case 'isUnspecified':
      return toIp(subject).bits === 0n;
    case 'isLoopback': {
      const ip = toIp(subject);
      return ip.family === 4 ? ip.bits >> 24n === 127n : ip.bits === 1n;
    }
    case 'prefixLength':
      return subject instanceof CidrValue ? subject.prefix : fail('prefixLength() needs a cidr');
    case 'masked': {
      if (!(subject instanceof CidrValue)) fail('masked() needs a cidr');
      const mask = maskOf(subject.ip.family, subject.prefix);
      return new CidrValue(new IpValue(subject.ip.family, subject.ip.bits & mask), subject.prefix);
    }
    case 'containsIP': {
      if (!(subject instanceof CidrValue)) fail('containsIP() needs a cidr');
      const ip = toIp(arg ?? null);
      const mask = maskOf(subject.ip.family, subject.prefix);
      return ip.family === subject.ip.family && (ip.bits & mask) === (subject.ip.bits & mask);
    }
    case 'containsCIDR': {
      if (!(subject instanceof CidrValue)) fail('containsCIDR() needs a cidr');
      const other = arg instanceof CidrValue ? arg : parseCidr(asString(arg ?? null, name));
      if (!other) fail('containsCIDR() needs a cidr argument');
      const mask = maskOf(subject.ip.family, subject.prefix);
      return (
        other.ip.family === subject.ip.family &&
        other.prefix >= subject.prefix &&
        (other.ip.bits & mask) === (subject.ip.bits & mask)
      );
    }
    default:
      return fail(`unknown function ${name}`);
  }
}

export interface CompiledRule {
  source: string;
  /** The rule reads oldSelf: kube evaluates it only on updates, when an old value exists. */
  isTransition: boolean;
  evaluate(self: JsonValue, oldSelf?: JsonValue): CelValue;
}

function mentionsOldSelf(node: Node): boolean {
  return JSON.stringify(node).includes('"name":"oldSelf"');
}

/** Parses a rule; throws CelUnsupportedError for anything this evaluator does not implement. */
export function compileRule(rule: string): CompiledRule {
  let tokens: Token[];
  try {
    tokens = tokenize(rule);
  } catch (err) {
    throw new CelUnsupportedError(rule, (err as Error).message);
  }
  const ast = new Parser(rule, tokens).parse();
  return {
    source: rule,
    isTransition: mentionsOldSelf(ast),
    evaluate(self, oldSelf) {
      const scope = new Map<string, CelValue>([['self', self]]);
      if (oldSelf !== undefined) scope.set('oldSelf', oldSelf);
      return evaluate(ast, scope);
    },
  };
}

/** Renders a CEL result for a messageExpression. */
export function celToString(value: CelValue): string {
  if (typeof value === 'string') return value;
  if (value instanceof IpValue) return formatIp(value);
  if (value instanceof CidrValue) return `${formatIp(value.ip)}/${value.prefix}`;
  return JSON.stringify(value);
}
