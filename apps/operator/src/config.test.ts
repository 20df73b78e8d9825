import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfigText } from '@fabrik/agent-runtime';
import { OperatorConfig, loadOperatorConfig } from './config.js';

const example = fileURLToPath(new URL('../../../examples/config/operator.yaml', import.meta.url));

describe('OperatorConfig', () => {
  it('reads examples/config/operator.yaml', async () => {
    const config = await loadOperatorConfig(example);
    expect(config.identity).toEqual({
      routerIdPool: '10.255.0.0/24',
      vtepPool: '10.254.0.0/24',
      asn: { from: 65001, to: 65099 },
    });
    expect(config.hbrVrf).toBe('hbr');
  });

  it.each([
    [
      'identity: { routerIdPool: 10.255.0.1/24, vtepPool: 10.254.0.0/24, asn: 65000 }',
      'identity.routerIdPool',
    ],
    ['identity: { routerIdPool: "fd00::/64", vtepPool: 10.254.0.0/24, asn: 65000 }', 'identity.routerIdPool'],
    [
      'identity: { routerIdPool: 10.255.0.0/24, vtepPool: 10.254.0.0/24, asn: { from: 65010, to: 65001 } }',
      'identity.asn',
    ],
    [
      'identity: { routerIdPool: 10.255.0.0/24, vtepPool: 10.254.0.0/24, asn: 65000 }\ndebounceMs: 5000',
      'debounceMs',
    ],
  ])('refuses %s, naming %s', (text, field) => {
    let error: unknown;
    try {
      parseConfigText(text, 'operator.yaml', OperatorConfig);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).issues.map((i) => i.path.split('.').slice(0, 2).join('.'))).toContain(
      field,
    );
  });
});
