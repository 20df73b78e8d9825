import { describe, expect, it } from 'vitest';
import { splitEchoedOutput } from './vtysh.js';

describe('splitEchoedOutput', () => {
  const commands = ['show evpn vni json', 'show vrf vni json', 'show running-config'];

  it('gives each command the lines after its echo, an empty output included', () => {
    const stdout = [
      'node-a# show evpn vni json',
      'node-a# show vrf vni json',
      '{',
      '  "vrfs":[',
      '  ]',
      '}',
      'node-a# show running-config',
      'Building configuration...',
      'hostname node-a',
      'end',
      '',
    ].join('\n');
    expect(splitEchoedOutput(stdout, commands)).toEqual([
      '',
      '{\n  "vrfs":[\n  ]\n}\n',
      'Building configuration...\nhostname node-a\nend\n',
    ]);
  });

  it('does not take a line that only ends like an echo for one', () => {
    const stdout = [
      'h# show evpn vni json',
      'description x# show vrf vni json',
      'h# show vrf vni json',
      '{}',
      'h# show running-config',
      'end',
    ].join('\n');
    expect(splitEchoedOutput(stdout, commands)).toEqual([
      'description x# show vrf vni json\n',
      '{}\n',
      'end',
    ]);
  });

  it('refuses output without the echoes rather than mixing the outputs up', () => {
    expect(() => splitEchoedOutput('{}\n{}\n', commands)).toThrow(/did not echo "show evpn vni json"/);
  });
});
