import { loadNetConf } from '../config.js';
import { resolveBridge } from '../default-bridge.js';
import { execIpam, ipamCallOf, type IpamCall } from '../ipam.js';
import { removeAttachment, writeAttachment } from '../cache.js';
import { hostVethAlias, hostVethName, randomMac } from '../names.js';
import { PortIds } from '@fabrik/api';
import { vlanSettings } from '../ovs.js';
import {
  assertNetnsExists,
  configurePodInterface,
  enableArpNotify,
  hostLinkDel,
  vethAdd,
} from '../pod-interface.js';
import { Rollback } from '../rollback.js';
import { CniError, CniErrorCode, type CmdArgs, type CniIpConfig, type CniResult } from '../skel/index.js';
import type { PluginDeps } from './context.js';

/**
 * ADD: veth pair, OVS port (waiting for its ofport), IPAM, addresses and routes in the Pod, cache.
 * IPAM runs while the veth and the port are created. Every acquired resource registers its undo
 * step; any failure releases them all, so a failed ADD leaves no port, veth or IP behind.
 */
export async function cmdAdd(args: CmdArgs, deps: PluginDeps): Promise<CniResult> {
  const conf = loadNetConf(args.config, args.args, args.cniVersion);
  await assertNetnsExists(args.netns);
  const bridge = await resolveBridge(conf, deps.env);
  const hostName = hostVethName(args.containerId, args.ifname);
  const hostMac = randomMac();
  const podMac = conf.mac ?? randomMac();
  const ipamCall = (command: IpamCall['command']): IpamCall =>
    ipamCallOf(conf.ipamType ?? '', command, args, deps.env);
  if (!conf.ipamType) staticAddresses(conf.ips);

  const rollback = new Rollback();
  // Connecting to OVSDB overlaps with creating the veth; the session is closed in any case.
  const session = deps.openOvs(conf);
  session.catch(() => undefined);
  try {
    const ipam = conf.ipamType
      ? (() => {
          // IPAM DEL is idempotent, so the release is registered before the ADD even returns.
          rollback.onFailure('IPAM release', () => execIpam(ipamCall('DEL')));
          return execIpam(ipamCall('ADD'));
        })()
      : Promise.resolve(undefined);
    const connectPort = async () => {
      const port = await session;
      await port.addPort({
        bridge,
        name: hostName,
        vlan: vlanSettings(conf),
        externalIds: {
          [PortIds.network]: conf.name,
          [PortIds.containerId]: args.containerId,
          [PortIds.ifname]: args.ifname,
          [PortIds.netns]: args.netns,
          ...(conf.podName ? { [PortIds.podName]: conf.podName } : {}),
          ...(conf.podNamespace ? { [PortIds.podNamespace]: conf.podNamespace } : {}),
        },
      });
      rollback.onFailure(`OVS port ${hostName}`, () => port.deletePort(hostName));
      await port.waitForOfport(hostName, conf.ofportTimeoutMs);
    };
    const attach = (async () => {
      await vethAdd({
        hostName,
        hostMac,
        podName: args.ifname,
        podMac,
        netnsPath: args.netns,
        alias: hostVethAlias(conf.name, args.containerId, args.ifname),
        ...(conf.mtu !== undefined ? { mtu: conf.mtu } : {}),
      });
      rollback.onFailure(`veth ${hostName}`, () => hostLinkDel(hostName));
      // Both settle before a failure propagates, so every undo step is registered before rollback runs.
      await settleAll([enableArpNotify(args.netns, args.ifname), connectPort()]);
    })();
    const [ipamResult] = await settleAll([ipam, attach] as const);

    const ips: CniIpConfig[] = ipamResult?.ips ?? staticAddresses(conf.ips).map((address) => ({ address }));
    const routes = ipamResult?.routes ?? [];

    const result: CniResult = {
      interfaces: [
        { name: hostName, mac: hostMac, ...(conf.mtu !== undefined ? { mtu: conf.mtu } : {}) },
        {
          name: args.ifname,
          mac: podMac,
          ...(conf.mtu !== undefined ? { mtu: conf.mtu } : {}),
          sandbox: args.netns,
        },
      ],
      ips: ips.map((ip) => ({ ...ip, interface: 1 })),
      routes,
      dns: ipamResult?.dns ?? {},
    };
    rollback.onFailure('cache record', () =>
      removeAttachment(conf.cacheDir, conf.name, args.containerId, args.ifname),
    );
    const record = writeAttachment(conf.cacheDir, {
      version: 1,
      network: conf.name,
      containerId: args.containerId,
      ifname: args.ifname,
      netns: args.netns,
      hostIfname: hostName,
      bridge,
      stdinData: args.stdinData,
      cniArgs: args.args,
      result,
    });
    await settleAll([
      configurePodInterface(
        args.netns,
        args.ifname,
        ips.map((ip) => ({ cidr: ip.address, ...(ip.gateway ? { gateway: ip.gateway } : {}) })),
        routes,
      ),
      record,
    ]);
    return result;
  } catch (e) {
    const leftovers = await rollback.run();
    if (leftovers.length > 0 && e instanceof CniError) {
      throw new CniError(
        e.code,
        e.message,
        [e.details, `rollback failed: ${leftovers.join('; ')}`].filter(Boolean).join('; '),
        { cause: e },
      );
    }
    if (leftovers.length > 0)
      throw new Error(`${(e as Error).message}; rollback failed: ${leftovers.join('; ')}`, { cause: e });
    throw e;
  } finally {
    (await session.catch(() => undefined))?.close();
  }
}

/** Like Promise.all, but waits for every promise to settle before rejecting with the first failure. */
async function settleAll<T extends readonly unknown[]>(
  promises: T,
): Promise<{ -readonly [K in keyof T]: Awaited<T[K]> }> {
  const outcomes = await Promise.allSettled(promises);
  const failed = outcomes.find((o): o is PromiseRejectedResult => o.status === 'rejected');
  if (failed) throw failed.reason;
  return outcomes.map((o) => (o as PromiseFulfilledResult<unknown>).value) as {
    -readonly [K in keyof T]: Awaited<T[K]>;
  };
}

/** Without IPAM, requested IPs (runtimeConfig.ips, args.cni.ips, CNI_ARGS IP) are used as they are: they need a prefix length. */
function staticAddresses(ips: readonly string[]): string[] {
  for (const ip of ips) {
    if (!ip.includes('/'))
      throw new CniError(
        CniErrorCode.invalidNetworkConfig,
        `invalid network config: runtimeConfig.ips: ${ip} needs a prefix length when there is no ipam`,
      );
  }
  return [...ips];
}
