import { loadNetConf } from '../config.js';
import { resolveBridge } from '../default-bridge.js';
import { execIpam, ipamCallOf } from '../ipam.js';
import { hostVethName } from '../names.js';
import { vlanSettings } from '../ovs.js';
import { hostLinkGet, podLinkGet } from '../pod-interface.js';
import { PluginErrorCode } from '../codes.js';
import { CniError, CniErrorCode, fromVersionedResult, type CmdArgs } from '../skel/index.js';
import type { PluginDeps } from './context.js';

/**
 * CHECK: the attachment described by prevResult still exists as configured: the OVS port on the
 * bridge with the VLAN settings and a working ofport, both veth ends, the Pod end's MAC, MTU and
 * addresses. Then the IPAM plugin checks its part.
 */
export async function cmdCheck(args: CmdArgs, deps: PluginDeps): Promise<void> {
  const conf = loadNetConf(args.config, args.args, args.cniVersion);
  if (conf.prevResult === undefined) {
    throw new CniError(
      CniErrorCode.invalidNetworkConfig,
      'invalid network config: prevResult: required for CHECK',
    );
  }
  const prev = fromVersionedResult(conf.prevResult);
  const fail = (msg: string) => new CniError(PluginErrorCode.checkFailed, `CHECK failed: ${msg}`);
  const podIndex = (prev.interfaces ?? []).findIndex(
    (i) => i.name === args.ifname && i.sandbox === args.netns,
  );
  const podIf = prev.interfaces?.[podIndex];
  if (!podIf) throw fail(`prevResult has no interface ${args.ifname} with sandbox ${args.netns}`);
  const hostName = hostVethName(args.containerId, args.ifname);
  const bridge = await resolveBridge(conf, deps.env);

  const ovs = await deps.openOvs(conf);
  let port;
  try {
    port = (await ovs.findPorts(conf.name)).find((p) => p.name === hostName);
  } finally {
    ovs.close();
  }
  if (!port) throw fail(`OVS port ${hostName} does not exist`);
  if (port.bridge !== bridge) throw fail(`OVS port ${hostName} is on bridge ${port.bridge}, not ${bridge}`);
  const want = vlanSettings(conf);
  const trunksNow = [...port.trunks].sort((a, b) => a - b).join(',');
  if (
    (port.tag ?? 0) !== (want.tag ?? 0) ||
    trunksNow !== (want.trunks ?? []).join(',') ||
    (want.vlanMode !== undefined && port.vlanMode !== want.vlanMode)
  ) {
    throw fail(
      `OVS port ${hostName} has tag=${port.tag ?? 'none'} trunks=[${trunksNow}] vlan_mode=${port.vlanMode ?? 'none'}, want tag=${want.tag ?? 'none'} trunks=[${(want.trunks ?? []).join(',')}] vlan_mode=${want.vlanMode ?? 'none'}`,
    );
  }
  if (port.error) throw fail(`OVS interface ${hostName} has error: ${port.error}`);
  if (!port.ofport || port.ofport < 0) throw fail(`OVS interface ${hostName} has no ofport`);
  if (!(await hostLinkGet(hostName))) throw fail(`host veth ${hostName} does not exist`);

  const link = await podLinkGet(args.netns, args.ifname);
  if (!link) throw fail(`interface ${args.ifname} does not exist in ${args.netns}`);
  if (link.kind !== undefined && link.kind !== 'veth')
    throw fail(`${args.ifname} is a ${link.kind}, not a veth`);
  if (podIf.mac && podIf.mac.toLowerCase() !== link.mac.toLowerCase())
    throw fail(`${args.ifname} has MAC ${link.mac}, prevResult says ${podIf.mac}`);
  if (conf.mtu !== undefined && link.mtu !== conf.mtu)
    throw fail(`${args.ifname} has MTU ${link.mtu}, want ${conf.mtu}`);
  if (!link.up) throw fail(`${args.ifname} is down`);
  for (const ip of prev.ips ?? []) {
    if (ip.interface !== undefined && ip.interface !== podIndex) continue;
    if (!link.addresses.includes(ip.address))
      throw fail(`${args.ifname} lacks address ${ip.address} (has ${link.addresses.join(', ') || 'none'})`);
  }

  if (conf.ipamType) {
    await execIpam(ipamCallOf(conf.ipamType, 'CHECK', args, deps.env));
  }
}
