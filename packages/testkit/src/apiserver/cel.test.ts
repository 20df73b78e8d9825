import { describe, expect, it } from 'vitest';
import { CelEvalError, CelUnsupportedError, compileRule } from './cel.js';

function run(rule: string, self: unknown, oldSelf?: unknown): unknown {
  return compileRule(rule).evaluate(self as never, oldSelf as never);
}

describe('CEL subset', () => {
  const pool = { subnet: '10.1.0.0/24', gateway: '10.1.0.1', vlan: 100, names: ['a', 'b'], tags: { x: 'y' } };

  it.each([
    ['self.vlan >= 1 && self.vlan <= 4094', true],
    ['self.vlan % 2 == 0 ? "even" : "odd"', 'even'],
    ['size(self.names) == 2 && self.names.size() == 2', true],
    ["self.names.all(n, n.matches('^[a-z]$'))", true],
    ["self.names.exists(n, n == 'b')", true],
    ["self.names.exists_one(n, n.startsWith('a'))", true],
    ['self.names.map(n, n + "!")', ['a!', 'b!']],
    ["self.names.filter(n, n != 'a')", ['b']],
    ["'x' in self.tags && !('z' in self.tags)", true],
    ['has(self.gateway) && !has(self.missing)', true],
    ['cidr(self.subnet).containsIP(self.gateway)', true],
    ["cidr(self.subnet).containsIP('10.2.0.1')", false],
    ["isCIDR(self.subnet) && !isCIDR('10.1.0.0/33') && isIP(self.gateway) && !isIP('10.1.0')", true],
    ["ip(self.gateway).family() == 4 && ip('fd00::1').family() == 6", true],
    ["cidr('10.1.0.7/24').masked() == cidr('10.1.0.0/24') && cidr(self.subnet).prefixLength() == 24", true],
    ["cidr('10.0.0.0/8').containsCIDR(self.subnet)", true],
    ['self.vlan / 3 == 33 && -self.vlan < 0', true],
    ["[1, 2, 3][1] == 2 && {'k': 1}['k'] == 1", true],
    ["r'\\d' == '\\\\d'", true],
  ])('%s', (rule, expected) => {
    expect(run(rule, pool)).toEqual(expected);
  });

  it('evaluates transition rules against oldSelf', () => {
    const rule = compileRule('self == oldSelf');
    expect(rule.isTransition).toBe(true);
    expect(rule.evaluate({ a: [1] }, { a: [1] })).toBe(true);
    expect(rule.evaluate({ a: [1] }, { a: [2] })).toBe(false);
    expect(compileRule('self.a > 0').isTransition).toBe(false);
  });

  it('absorbs errors in && and || as CEL does, and reports others', () => {
    expect(run('false && self.missing', {})).toBe(false);
    expect(run('self.missing || true', {})).toBe(true);
    expect(() => run('self.missing == 1', {})).toThrow(CelEvalError);
  });

  it.each([
    ['self.x.optMap(v, v)', 'function optMap()'],
    ["duration('1s') > duration('0s')", 'function duration()'],
    ['request.user == "x"', 'identifier request'],
    ['self.?x', 'field selection without a name'],
  ])('refuses %s at load', (rule, what) => {
    expect(() => compileRule(rule)).toThrow(CelUnsupportedError);
    expect(() => compileRule(rule)).toThrow(what);
  });
});
