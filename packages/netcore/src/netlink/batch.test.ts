import { describe, expect, it } from 'vitest';
import { CommandError, type RunResult } from '../exec/run.js';
import { batchOpArgs, runBatch, NetlinkBatchOpsSchema, type NetlinkBatchOp } from './batch.js';
import { batchLine, routeArgs } from './encode.js';
import type { NetnsRunner } from './exec.js';
import { isKernelRejectedError, isLinkNotFoundError, isObjectExistsError } from './errors.js';
import { RouteSpecSchema, sysctlAssignments } from './objects.js';
import { validate } from './validate.js';

describe('route attributes mtu, advmss, scope', () => {
  it('are encoded by routeArgs', () => {
    expect(
      batchLine(
        routeArgs('add', {
          dst: '10.8.0.0/24',
          via: '10.9.0.1',
          dev: 'eth0',
          mtu: 1400,
          advmss: 1360,
          metric: 5,
          table: 7,
          scope: 'link',
        }),
      ),
    ).toBe('route add 10.8.0.0/24 via 10.9.0.1 dev eth0 table 7 metric 5 scope link mtu 1400 advmss 1360');
    expect(batchLine(routeArgs('replace', { dst: '10.6.0.0/24', dev: 'eth0', scope: 200 }))).toBe(
      'route replace 10.6.0.0/24 dev eth0 scope 200',
    );
  });
  it.each([
    [{ dst: '10.0.0.0/24', dev: 'e0', mtu: 67 }, 'route.mtu'],
    [{ dst: '10.0.0.0/24', dev: 'e0', mtu: 1500.5 }, 'route.mtu'],
    [{ dst: '10.0.0.0/24', dev: 'e0', advmss: 0 }, 'route.advmss'],
    [{ dst: '10.0.0.0/24', dev: 'e0', scope: 256 }, 'route.scope'],
    [{ dst: '10.0.0.0/24', dev: 'e0', scope: 'universe' }, 'route.scope'],
  ])('%j is rejected at %s', (route, path) => {
    expect(() => validate(RouteSpecSchema, route, 'route')).toThrow(
      expect.objectContaining({ path }) as Error,
    );
  });
});

describe('arpNotify sysctl', () => {
  it('is written as net/ipv4/conf/DEV/arp_notify (slash form keeps dots in names)', () => {
    expect(sysctlAssignments('tr.100', { arpNotify: 1, arpAccept: 2 })).toEqual([
      'net/ipv4/conf/tr.100/arp_accept=2',
      'net/ipv4/conf/tr.100/arp_notify=1',
    ]);
    expect(sysctlAssignments('eth0', { addrGenMode: 'none' })).toEqual([
      'net/ipv6/conf/eth0/addr_gen_mode=1',
    ]);
  });
});

const podOps: NetlinkBatchOp[] = [
  { op: 'addrAdd', dev: 'eth1', address: { address: '10.0.0.5/24' } },
  { op: 'addrAdd', dev: 'eth1', address: { address: 'fd00::5/64', nodad: true } },
  { op: 'linkSetUp', name: 'eth1' },
  { op: 'routeAdd', route: { dst: '10.8.0.0/16', via: '10.0.0.1', dev: 'eth1', mtu: 1400 } },
  { op: 'routeAdd', route: { dst: 'default', family: 'inet6', via: 'fd00::1', dev: 'eth1', metric: 10 } },
];

describe('batch operations', () => {
  it('encode one line each, like the verbs', () => {
    expect(podOps.map((op) => batchLine(batchOpArgs(op)))).toEqual([
      'addr add 10.0.0.5/24 dev eth1',
      'addr add fd00::5/64 dev eth1 nodad',
      'link set dev eth1 up',
      'route add 10.8.0.0/16 via 10.0.0.1 dev eth1 mtu 1400',
      'route add ::/0 via fd00::1 dev eth1 metric 10',
    ]);
    expect(
      batchOpArgs({ op: 'addrDel', dev: 'eth1', address: { address: 'fd00::5/64', nodad: true } }).join(' '),
    ).toBe('addr del fd00::5/64 dev eth1');
    expect(batchOpArgs({ op: 'linkSetDown', name: 'eth1' }).join(' ')).toBe('link set dev eth1 down');
    expect(
      batchOpArgs({
        op: 'neighReplace',
        neigh: { dev: 'eth1', address: '10.0.0.9', lladdr: '02:00:00:00:00:09' },
      }).join(' '),
    ).toBe('neigh replace 10.0.0.9 lladdr 02:00:00:00:00:09 dev eth1 nud permanent');
  });

  it.each([
    [[{ op: 'addrAdd', dev: 'eth1', address: { address: '10.0.0.5' } }], 'ops[0].address.address'],
    [
      [
        { op: 'linkSetUp', name: 'eth1' },
        { op: 'linkSetUp', name: 'a b' },
      ],
      'ops[1].name',
    ],
    [[{ op: 'routeAdd', route: { dst: '10.0.0.0/24 dev x', dev: 'eth1' } }], 'ops[0].route.dst'],
    [[{ op: 'linkDel', name: 'eth1' }], 'ops[0].op'],
  ])('%j is rejected at %s', (ops, path) => {
    expect(() => validate(NetlinkBatchOpsSchema, ops, 'ops')).toThrow(
      expect.objectContaining({ path }) as Error,
    );
  });
});

/** A runner whose `ip` fails like iproute2 does on line `line` of a batch. */
function failingRunner(stderr: string): NetnsRunner & { inputs: string[] } {
  const inputs: string[] = [];
  const fail = (args: readonly string[], input?: string): Promise<RunResult> => {
    inputs.push(input ?? '');
    return Promise.reject(new CommandError(['ip', ...args], 1, stderr, ''));
  };
  const ipStream = () => {
    throw new Error('not used by batches');
  };
  return {
    netns: 'pod',
    inputs,
    ip: fail,
    bridge: fail,
    sysctlRead: fail,
    sysctlWrite: () => Promise.reject(new Error('not used')),
    ipStream,
  };
}

describe('a failing batch line is mapped back to its operation', () => {
  const batch = { lines: podOps.map((op) => batchLine(batchOpArgs(op))), ops: podOps };

  it('kernel refusal: the line as operation, the op attached', async () => {
    const runner = failingRunner('Error: Nexthop has invalid gateway.\nCommand failed -:4\n');
    const err = await runBatch(runner, 'ip', batch).catch((e: unknown) => e);
    expect(isKernelRejectedError(err)).toBe(true);
    expect(err).toMatchObject({
      operation: 'ip route add 10.8.0.0/16 via 10.0.0.1 dev eth1 mtu 1400',
      kernelMessage: 'Error: Nexthop has invalid gateway.',
      op: podOps[3],
    });
    expect(runner.inputs).toEqual([`${batch.lines.join('\n')}\n`]);
  });

  it('existing object and missing device', async () => {
    const exists = await runBatch(
      failingRunner('RTNETLINK answers: File exists\nCommand failed -:1\n'),
      'ip',
      batch,
    ).catch((e: unknown) => e);
    expect(isObjectExistsError(exists)).toBe(true);
    expect(exists).toMatchObject({ operation: 'ip addr add 10.0.0.5/24 dev eth1' });
    const missing = await runBatch(
      failingRunner('Cannot find device "eth1"\nCommand failed -:3\n'),
      'ip',
      batch,
    ).catch((e: unknown) => e);
    expect(isLinkNotFoundError(missing)).toBe(true);
    expect(missing).toMatchObject({ linkName: 'eth1', netns: 'pod' });
  });

  it('without a line number: the whole batch is named', async () => {
    const err = await runBatch(
      failingRunner('nsenter: cannot open /proc/1/ns/net: Permission denied\n'),
      'ip',
      batch,
    ).catch((e: unknown) => e);
    expect(err).toMatchObject({ operation: 'ip -batch -', op: undefined });
  });
});
