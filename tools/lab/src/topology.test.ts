import { describe, expect, it } from 'vitest';
import { topologyBatches } from './topology.js';

describe('topologyBatches', () => {
  it('creates veths into their nodes, then configures each namespace in one batch', () => {
    const { create, configure } = topologyBatches({
      nodes: ['n1', 'n2'],
      links: [
        { a: { node: 'n1', ifname: 'u1', addresses: ['192.0.2.1/30'] }, b: { node: 'n2', ifname: 'u2' } },
        {
          a: { ifname: 'lab-n1', addresses: ['10.0.0.1/30', '10.9.9.9/32'] },
          b: { node: 'n1', ifname: 'eth0' },
        },
      ],
      routes: [{ node: 'n1', to: '10.9.9.9/32', via: '10.0.0.1' }],
    });
    expect(create).toEqual([
      'link add u1 netns n1 type veth peer name u2 netns n2',
      'link add lab-n1 type veth peer name eth0 netns n1',
    ]);
    expect(Object.fromEntries(configure)).toEqual({
      n1: [
        'link set lo up',
        'addr add 192.0.2.1/30 dev u1',
        'link set u1 up',
        'link set eth0 up',
        'route add 10.9.9.9/32 via 10.0.0.1',
      ],
      n2: ['link set lo up', 'link set u2 up'],
      undefined: ['addr add 10.0.0.1/30 dev lab-n1', 'addr add 10.9.9.9/32 dev lab-n1', 'link set lab-n1 up'],
    });
  });
});
