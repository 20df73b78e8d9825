import { describe, expect, it } from 'vitest';
import { netnsList, runCommand } from '@fabrik/netcore';
import { uniqueName } from '@fabrik/testkit';
import { buildTopology } from './topology.js';

describe('lab topologies', () => {
  it('builds nodes and addressed links that ping, and removes them', async () => {
    const [a, b] = [uniqueName('topo-a-'), uniqueName('topo-b-')];
    const built = await buildTopology({
      nodes: [a, b],
      links: [
        {
          a: { node: a, ifname: 'ua', addresses: ['192.0.2.1/30'] },
          b: { node: b, ifname: 'ub', addresses: ['192.0.2.2/30'] },
        },
      ],
    });
    try {
      const { stdout } = await runCommand('ip', ['netns', 'exec', a, 'ping', '-c1', '-W2', '192.0.2.2']);
      expect(stdout).toMatch(/1 received/);
    } finally {
      await built.destroy();
    }
    const left = await netnsList();
    expect(left).not.toContain(a);
    expect(left).not.toContain(b);
  });

  it('links a node to this namespace, with a route through it to an address held here', async () => {
    const node = uniqueName('topo-r-');
    const here = uniqueName('r');
    const built = await buildTopology({
      nodes: [node],
      links: [
        {
          a: { ifname: here, addresses: ['198.51.100.1/30', '198.51.100.9/32'] },
          b: { node, ifname: 'eth0', addresses: ['198.51.100.2/30'] },
        },
      ],
      routes: [{ node, to: '198.51.100.9/32', via: '198.51.100.1' }],
    });
    try {
      const { stdout } = await runCommand('ip', [
        'netns',
        'exec',
        node,
        'ping',
        '-c1',
        '-W2',
        '198.51.100.9',
      ]);
      expect(stdout).toMatch(/1 received/);
    } finally {
      await built.destroy();
    }
    // The end in this namespace went with its peer (the kernel tears a namespace down
    // asynchronously, so give it a moment).
    const gone = async (): Promise<boolean> =>
      runCommand('ip', ['link', 'show', here]).then(
        () => false,
        () => true,
      );
    for (let i = 0; i < 100 && !(await gone()); i++) await new Promise((r) => setTimeout(r, 50));
    expect(await gone()).toBe(true);
  });

  it('rejects a link to an unknown node before creating anything', async () => {
    const a = uniqueName('topo-x-');
    await expect(
      buildTopology({
        nodes: [a],
        links: [{ a: { node: a, ifname: 'x' }, b: { node: 'nope', ifname: 'y' } }],
      }),
    ).rejects.toThrow(/unknown node nope/);
    expect(await netnsList()).not.toContain(a);
  });
});
