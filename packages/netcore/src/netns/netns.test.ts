import { describe, expect, it } from 'vitest';
import { InvalidNetnsNameError, netnsPath, validateNetnsName } from './netns.js';

describe('netns names', () => {
  it('maps a name to its /run/netns path', () => {
    expect(netnsPath('hbr')).toBe('/run/netns/hbr');
  });
  it.each(['', '../etc', 'a b', '-x', '.', 'x'.repeat(65)])('rejects %j before touching anything', (name) => {
    expect(() => validateNetnsName(name)).toThrow(InvalidNetnsNameError);
  });
});
