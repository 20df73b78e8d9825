import { describe, expect, it } from 'vitest';
import { isApiError } from './errors.js';
import { matchFields, matchLabels, parseFieldSelector, parseLabelSelector } from './selectors.js';

const labels = { app: 'agent', tier: 'node', 'fabrik.dev/role': 'hbr' };

function selects(selector: string): boolean {
  return matchLabels(parseLabelSelector(selector), labels);
}

describe('label selectors', () => {
  it.each([
    ['app=agent', true],
    ['app==agent', true],
    ['app!=agent', false],
    ['app!=other', true],
    ['missing!=x', true],
    ['app in (agent, cni)', true],
    ['app notin (agent)', false],
    ['missing notin (agent)', true],
    ['tier', true],
    ['!tier', false],
    ['!missing', true],
    ['fabrik.dev/role=hbr,tier in (node),!missing', true],
    ['app=agent,tier=pod', false],
    ['', true],
  ])('%s -> %s', (selector, expected) => {
    expect(selects(selector)).toBe(expected);
  });

  it('refuses an invalid key or value, naming the selector', () => {
    let caught: unknown;
    try {
      parseLabelSelector('app=bad!');
    } catch (err) {
      caught = err;
    }
    expect(isApiError(caught) && caught.code).toBe(400);
    expect((caught as Error).message).toContain('invalid label value');
  });
});

describe('field selectors', () => {
  const obj = { metadata: { name: 'n1', namespace: 'ns' }, spec: { nodeName: 'node-a' } };
  it('matches = and != on supported fields', () => {
    const supported = ['metadata.name', 'metadata.namespace', 'spec.nodeName'];
    expect(matchFields(parseFieldSelector('metadata.name=n1', supported), obj)).toBe(true);
    expect(matchFields(parseFieldSelector('metadata.name!=n1', supported), obj)).toBe(false);
    expect(
      matchFields(parseFieldSelector('spec.nodeName==node-a,metadata.namespace=ns', supported), obj),
    ).toBe(true);
    expect(matchFields(parseFieldSelector('spec.nodeName=node-b', supported), obj)).toBe(false);
  });

  it('refuses a field the kind does not support, as kube does', () => {
    expect(() => parseFieldSelector('spec.vni=1', ['metadata.name'])).toThrow(
      'field label not supported: spec.vni',
    );
  });
});
