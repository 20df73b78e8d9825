import { describe, expect, it } from 'vitest';
import { formatCpu, parseStat } from './cpu.js';
import { cniRequestsOf } from './node.js';

describe('parseStat', () => {
  it('reads own and children CPU ticks after a comm with spaces and parentheses', () => {
    // Fields 14-17: utime stime cutime cstime (ticks of 10 ms).
    const stat =
      '4242 (node (x) y) S 1 4242 4242 0 -1 4194304 100 0 0 0 250 50 1200 300 20 0 11 0 100 1000 50 0 0 0 0 0';
    expect(parseStat(4242, stat, 'node\0demo.ts\0')).toEqual({
      pid: 4242,
      command: 'node demo.ts',
      selfMs: 3000,
      childrenMs: 15000,
    });
  });

  it('names a kernel thread (no command line) by its comm', () => {
    const stat = '7 (kworker/u2:0) I 2 0 0 0 -1 0 0 0 0 0 1 2 3 4 20 0 1 0 5 0 0';
    expect(parseStat(7, stat, '').command).toBe('[kworker/u2:0]');
  });
});

describe('formatCpu', () => {
  it('lists the processes with the most own + children CPU first', () => {
    const text = formatCpu(
      [
        { pid: 1, command: 'small', selfMs: 100, childrenMs: 0 },
        { pid: 2, command: 'big', selfMs: 100, childrenMs: 5000 },
      ],
      1,
    );
    expect(text).toContain('big');
    expect(text).not.toContain('small');
  });
});

describe('cniRequestsOf', () => {
  const metrics = [
    '# TYPE fabrik_agent_host_cni_requests_total counter',
    'fabrik_agent_host_cni_requests_total{command="ADD",result="success"} 3',
    'fabrik_agent_host_cni_requests_total{command="ADD",result="error"} 1',
    'fabrik_agent_host_cni_requests_total{command="CHECK",result="success"} 2',
  ].join('\n');

  it('counts the successful invocations of one command', () => {
    expect(cniRequestsOf(metrics, 'ADD')).toBe(3);
    expect(cniRequestsOf(metrics, 'CHECK')).toBe(2);
  });

  it('is 0 when agent-host answered none', () => {
    expect(cniRequestsOf(metrics, 'DEL')).toBe(0);
  });
});
