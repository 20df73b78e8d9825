import { describe, expect, it } from 'vitest';
import { startEndpoints, parseListenAddress } from './http.js';
import { createAgentMetrics } from './metrics.js';

describe('parseListenAddress', () => {
  it.each([
    [':9100', { host: undefined, port: 9100 }],
    ['127.0.0.1:0', { host: '127.0.0.1', port: 0 }],
    ['[::1]:8080', { host: '::1', port: 8080 }],
  ])('%s', (text, want) => expect(parseListenAddress(text)).toEqual(want));
  it.each(['9100', 'host', 'a:99999', '::1:80'])('refuses %s', (text) =>
    expect(() => parseListenAddress(text)).toThrow(/invalid listen address/),
  );
});

describe('HTTP endpoints', () => {
  it('serve metrics, health and readiness on separate addresses', async () => {
    const metrics = createAgentMetrics({ prefix: 'fabrik_test' });
    metrics.reconcilesTotal.inc({ result: 'success' });
    let ready = false;
    let frrUp = true;
    const ep = await startEndpoints({
      metricsAddress: '127.0.0.1:0',
      healthAddress: '127.0.0.1:0',
      registry: metrics.registry,
      healthChecks: {
        frr: async () => {
          if (!frrUp) throw new Error('vtysh: connection refused');
        },
      },
      readiness: () => ({ ready, reasons: ready ? [] : ['intent source not synced'] }),
    });
    try {
      const [m, h] = ep.addresses as [string, string];
      const get = async (addr: string, path: string) => {
        const r = await fetch(`http://${addr}${path}`);
        return { status: r.status, body: await r.text() };
      };
      const scraped = await get(m, '/metrics');
      expect(scraped.status).toBe(200);
      expect(scraped.body).toContain('fabrik_test_reconciles_total{result="success"} 1');
      expect(scraped.body).toContain('fabrik_test_process_cpu_seconds_total');
      expect((await get(h, '/metrics')).status).toBe(404);
      expect(await get(h, '/readyz')).toEqual({ status: 503, body: 'intent source not synced\n' });
      ready = true;
      expect((await get(h, '/readyz')).status).toBe(200);
      expect((await get(h, '/healthz')).status).toBe(200);
      frrUp = false;
      expect(await get(h, '/healthz')).toEqual({ status: 503, body: 'frr: vtysh: connection refused\n' });
    } finally {
      await ep.close();
    }
  });

  it('serve everything from one server when the addresses are equal', async () => {
    const metrics = createAgentMetrics({ prefix: 'fabrik_one', processMetrics: false });
    const probe = await startEndpoints({
      healthAddress: '127.0.0.1:0',
      registry: metrics.registry,
      healthChecks: {},
      readiness: () => ({ ready: true, reasons: [] }),
    });
    const address = probe.addresses[0]!;
    await probe.close();
    const ep = await startEndpoints({
      metricsAddress: address,
      healthAddress: address,
      registry: metrics.registry,
      healthChecks: {},
      readiness: () => ({ ready: true, reasons: [] }),
    });
    try {
      expect(ep.addresses).toHaveLength(1);
      for (const path of ['/metrics', '/healthz', '/readyz'])
        expect((await fetch(`http://${address}${path}`)).status).toBe(200);
    } finally {
      await ep.close();
    }
  });
});
