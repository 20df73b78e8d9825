import { PortIds } from '@fabrik/api';
import { loadNetConf, type NetConf } from '../config.js';
import { resolveBridge } from '../default-bridge.js';
import {
  execIpam,
  ipamCallOf,
  ipamRulesOf,
  isIpamAnswer,
  resolveIpamPlugin,
  type IpamCall,
} from '../ipam.js';
import { readAttachment, removeAttachment, writeAttachment, type AttachmentRecord } from '../cache.js';
import { PluginErrorCode } from '../codes.js';
import { hostVethAlias, hostVethName, randomMac } from '../names.js';
import {
  loadNodeSettings,
  CniError,
  CniErrorCode,
  type NodeSettings,
  type CmdArgs,
  type CniIpConfig,
  type CniResult,
} from '@fabrik/cni-skel';
import { effectiveVlan, takesIpamVlan, vlanSettings } from '../ovs.js';
import {
  VETH_DEFAULT_MTU,
  assertNamespaceFile,
  configurePodInterface,
  enableArpNotify,
  hostLinkDel,
  vethAdd,
} from '../pod-interface.js';
import { Rollback } from '../rollback.js';
import type { PluginDeps } from './context.js';

/**
 * ADD: veth pair, OVS port (waiting for its ofport), IPAM, addresses and routes in the Pod, cache.
 * Everything is validated and the cache record written before any resource is acquired; IPAM runs
 * while the veth and the port are created. Every acquired resource registers its undo step; any
 * failure releases them all, so a failed ADD leaves no port, veth, IP or record behind (the record
 * stays only when an undo step failed, so that DEL and GC can finish the job).
 */
export async function cmdAdd(args: CmdArgs, deps: PluginDeps): Promise<CniResult> {
  const node = await loadNodeSettings(deps.env);
  const { settings } = node;
  const conf = loadNetConf(args.config, args.args, args.cniVersion);
  await assertNamespaceFile(args.netns);
  await deps.admit?.({ conf, config: args.config, cniArgs: args.args });
  const bridge = await resolveBridge(conf.bridge, settings.agentHostConfig);
  const hostName = hostVethName(args.containerId, args.ifname);
  const hostMac = randomMac();
  const podMac = conf.mac ?? randomMac();
  const mtu = conf.mtu ?? VETH_DEFAULT_MTU;
  const rules = ipamRulesOf(node);
  const ipamCall = (command: IpamCall['command']): IpamCall =>
    ipamCallOf(conf.ipamType ?? '', command, args, deps.env, rules);
  if (conf.ipamType) await resolveIpamPlugin(conf.ipamType, args.path, rules);
  else staticAddresses(conf.ips);

  await assertNotAttached(settings.cacheDir, conf.name, args);

  const record: AttachmentRecord = {
    version: 1,
    network: conf.name,
    containerId: args.containerId,
    ifname: args.ifname,
    netns: args.netns,
    hostIfname: hostName,
    bridge,
    stdinData: args.stdinData,
    cniArgs: args.args,
  };
  await prepareRecord(node, record);

  const rollback = new Rollback();
  // Connecting to OVSDB overlaps with creating the veth; the session is closed in any case.
  const session = deps.openOvs(settings);
  session.catch(() => undefined);
  try {
    const ipam = conf.ipamType
      ? (() => {
          // IPAM DEL is idempotent, so the release is registered before the ADD even returns (an
          // IPAM killed half-way may hold a lease). An IPAM that answered with an error has
          // released what it took (the spec requires it): then there is nothing to release, and a
          // release that fails too (it reads the same config) must not count as a leftover. An
          // IPAM that says the attachment held its addresses already (fabrik-ipam's
          // `fabrik.heldAlready`) gave nothing new: releasing them would free a live attachment's.
          const noRelease = rollback.onFailure('IPAM release', () =>
            execIpam(ipamCall('DEL'), deps.inProcessIpam),
          );
          return execIpam(ipamCall('ADD'), deps.inProcessIpam).then(
            (result) => {
              if (result?.fabrik?.heldAlready) noRelease();
              return result;
            },
            (e: unknown) => {
              if (isIpamAnswer(e)) noRelease();
              throw e;
            },
          );
        })()
      : Promise.resolve(undefined);
    // Without a VLAN of its own the port waits for IPAM, whose result may name the subnet's VLAN:
    // a port never exists untagged on the way to its VLAN.
    const vlan =
      conf.ipamType && takesIpamVlan(conf)
        ? ipam.then((r) => effectiveVlan(conf, r?.fabrik?.vlan))
        : Promise.resolve(conf.vlan);
    vlan.catch(() => undefined); // IPAM's failure is reported through `ipam`
    const connectPort = async () => {
      const [port, access] = await Promise.all([session, vlan]);
      await port.addPort({
        bridge,
        name: hostName,
        vlan: vlanSettings({ vlan: access, trunks: conf.trunks }),
        externalIds: portIds(conf, args),
      });
      rollback.onFailure(`OVS port ${hostName}`, () => port.deletePort(hostName));
      await port.waitForOfport(hostName, settings.timeouts.ofportTimeoutMs);
    };
    const attach = (async () => {
      await vethAdd({
        hostName,
        hostMac,
        podName: args.ifname,
        podMac,
        netnsPath: args.netns,
        alias: hostVethAlias({ network: conf.name, containerId: args.containerId, ifname: args.ifname }),
        mtu,
      });
      rollback.onFailure(`veth ${hostName}`, () => hostLinkDel(hostName));
      // Both settle before a failure propagates, so every undo step is registered before rollback runs.
      await settleAll([enableArpNotify(args.netns, args.ifname), connectPort()]);
    })();
    const [ipamResult] = await settleAll([ipam, attach] as const);

    const access = await vlan;
    const ips: CniIpConfig[] = ipamResult?.ips ?? staticAddresses(conf.ips).map((address) => ({ address }));
    const routes = ipamResult?.routes ?? [];
    const result: CniResult = {
      interfaces: [
        { name: hostName, mac: hostMac, mtu },
        { name: args.ifname, mac: podMac, mtu, sandbox: args.netns },
      ],
      ips: ips.map((ip) => ({ ...ip, interface: 1 })),
      routes,
      dns: ipamResult?.dns ?? {},
      // The VLAN IPAM chose, for CHECK (which reads it back from the attachment record).
      ...(access !== conf.vlan ? { fabrik: { vlan: access } } : {}),
    };
    await settleAll([
      configurePodInterface(
        args.netns,
        args.ifname,
        ips.map((ip) => ({ cidr: ip.address, ...(ip.gateway ? { gateway: ip.gateway } : {}) })),
        routes,
      ),
      writeAttachment(settings.cacheDir, { ...record, result }, { durable: true }),
    ]);
    return result;
  } catch (e) {
    const leftovers = await rollback.run();
    if (leftovers.length === 0) {
      await removeAttachment(settings.cacheDir, conf.name, args.containerId, args.ifname).catch(
        () => undefined,
      );
      throw e;
    }
    const rollbackFailed = `rollback failed: ${leftovers.join('; ')}`;
    if (e instanceof CniError)
      throw new CniError(e.code, e.message, [e.details, rollbackFailed].filter(Boolean).join('; '), {
        cause: e,
      });
    throw new Error(`${(e as Error).message}; ${rollbackFailed}`, { cause: e });
  } finally {
    (await session.catch(() => undefined))?.close();
  }
}

/** The external_ids of the attachment's OVS port (the contract in @fabrik/api's PortIds). */
function portIds(conf: NetConf, args: CmdArgs): Record<string, string> {
  return {
    [PortIds.network]: conf.name,
    [PortIds.containerId]: args.containerId,
    [PortIds.ifname]: args.ifname,
    [PortIds.netns]: args.netns,
    ...(conf.podName ? { [PortIds.podName]: conf.podName } : {}),
    ...(conf.podNamespace ? { [PortIds.podNamespace]: conf.podNamespace } : {}),
  };
}

/**
 * Refuses a repeated ADD (code 102) while the cache holds a record of the attachment: an earlier
 * ADD of the same network, container id and ifname that no DEL removed, which may be a live Pod's
 * interface. Nothing is written or acquired, so its record, addresses, port and veth stay as they
 * are (the spec forbids ADD twice without DEL; a runtime retrying a failed ADD calls DEL first).
 */
async function assertNotAttached(cacheDir: string, network: string, args: CmdArgs): Promise<void> {
  const earlier = await readAttachment(cacheDir, network, args.containerId, args.ifname);
  if (!earlier) return;
  throw new CniError(
    PluginErrorCode.attachmentExists,
    `attachment ${args.containerId}/${args.ifname} of network ${network} exists already (${earlier.result ? 'added' : 'an ADD that did not finish'}, not deleted): nothing was changed; DEL it before adding it again`,
  );
}

/**
 * Writes the record before anything is acquired: proves that the cache directory is usable (a
 * cache that is not fails ADD with nothing to undo) and leaves the evidence DEL and GC rely on.
 * Not synced to disk (an fsync costs milliseconds on every ADD): after a crash in the middle of
 * ADD, DEL still releases the IPs with the runtime's config, and GC finds the port and the veth.
 */
async function prepareRecord(node: NodeSettings, record: AttachmentRecord): Promise<void> {
  try {
    await writeAttachment(node.settings.cacheDir, record, { durable: false });
  } catch (e) {
    throw new CniError(
      CniErrorCode.ioFailure,
      `cache directory ${node.settings.cacheDir} (cacheDir of ${node.path}) is not usable: ${(e as Error).message}`,
      undefined,
      { cause: e },
    );
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
