// The kubeconfig and the certificate name the address clients use (advertiseAddress), so clients
// elsewhere than on 127.0.0.1 verify the server; a new address on the same directory makes a new
// certificate.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { expect, it } from 'vitest';
import { startApiServer } from './server.js';

async function namespaces(kubeconfigPath: string): Promise<string[]> {
  const kc = new KubeConfig();
  kc.loadFromFile(kubeconfigPath);
  return (await kc.makeApiClient(CoreV1Api).listNamespace()).items.map((n) => n.metadata!.name!);
}

it('serves clients at the advertised address with a certificate for it', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'fabrik-apiserver-tls-'));
  try {
    const first = await startApiServer({ dir, crdDirs: [], host: '0.0.0.0', advertiseAddress: '127.0.0.2' });
    expect(first.url).toMatch(/^https:\/\/127\.0\.0\.2:\d+$/);
    expect(await namespaces(first.kubeconfigPath)).toContain('default');
    await first.stop();

    const second = await startApiServer({ dir, crdDirs: [], host: '0.0.0.0', advertiseAddress: '127.0.0.3' });
    expect(second.url).toMatch(/^https:\/\/127\.0\.0\.3:\d+$/);
    expect(await namespaces(second.kubeconfigPath)).toContain('default');
    await second.stop();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
