import { loadNetConf } from '../config.js';
import { resolveBridge } from '../default-bridge.js';
import { execIpam, ipamCallOf, ipamRulesOf } from '../ipam.js';
import { hostVethName, marksAttachment } from '../names.js';
import {
  loadNodeSettings,
  CniError,
  CniErrorCode,
  parseCniResult,
  type CmdArgs,
  type CniResult,
} from '@fabrik/cni-skel';
import { effectiveVlan, vlanSettings } from '../ovs.js';
import { readAttachment } from '../cache.js';
import {
  VETH_DEFAULT_MTU,
  hostLinkGet,
  podInterfaceState,
  podRouteSpecs,
  routeIs,
} from '../pod-interface.js';
import { PluginErrorCode } from '../codes.js';
import type { PluginDeps } from './context.js';

/**
 * CHECK: the attachment described by prevResult still exists as configured: the OVS port on the
 * bridge with the VLAN settings and a working ofport; the host veth with this attachment's mark
 * and MTU; the Pod end (a veth) with its MAC, MTU, up, every prevResult address and every
 * prevResult route as ADD added it. Then the IPAM plugin checks its part. A difference is code 101
 * naming it; a malformed prevResult is code 7 naming the field.
 */
export async function cmdCheck(args: CmdArgs, deps: PluginDeps): Promise<void> {
  const node = await loadNodeSettings(deps.env);
  const { settings } = node;
  const conf = loadNetConf(args.config, args.args, args.cniVersion);
  const prev = parsePrevResult(conf.prevResult);
  const fail = (msg: string) => new CniError(PluginErrorCode.checkFailed, `CHECK failed: ${msg}`);
  const podIndex = (prev.interfaces ?? []).findIndex(
    (i) => i.name === args.ifname && i.sandbox === args.netns,
  );
  const podIf = prev.interfaces?.[podIndex];
  if (!podIf) throw fail(`prevResult has no interface ${args.ifname} with sandbox ${args.netns}`);
  const hostName = hostVethName(args.containerId, args.ifname);
  const bridge = await resolveBridge(conf.bridge, settings.agentHostConfig);
  // The MTU ADD gave both ends (1.1.0 results carry it per interface).
  const mtu = podIf.mtu ?? conf.mtu ?? VETH_DEFAULT_MTU;

  const ovs = await deps.openOvs(settings);
  let port;
  try {
    port = (await ovs.findPorts(conf.name)).find((p) => p.name === hostName);
  } finally {
    ovs.close();
  }
  if (!port) throw fail(`OVS port ${hostName} does not exist`);
  if (port.bridge !== bridge) throw fail(`OVS port ${hostName} is on bridge ${port.bridge}, not ${bridge}`);
  // A VLAN that came from IPAM (fabrik-ipam's pool) is in the attachment record's result.
  const record = await readAttachment(settings.cacheDir, conf.name, args.containerId, args.ifname);
  const want = vlanSettings({ vlan: effectiveVlan(conf, record?.result?.fabrik?.vlan), trunks: conf.trunks });
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
  const hostLink = await hostLinkGet(hostName);
  if (!hostLink) throw fail(`host veth ${hostName} does not exist`);
  if (!marksAttachment(hostLink.alias, args.containerId, args.ifname))
    throw fail(
      `host link ${hostName} is not this attachment's (ifalias ${JSON.stringify(hostLink.alias ?? '')})`,
    );
  if (hostLink.mtu !== mtu) throw fail(`host veth ${hostName} has MTU ${hostLink.mtu}, want ${mtu}`);

  const { link, routes } = await podInterfaceState(args.netns, args.ifname);
  if (!link) throw fail(`interface ${args.ifname} does not exist in ${args.netns}`);
  if (link.kind !== 'veth') throw fail(`${args.ifname} is a ${link.kind}, not a veth`);
  if (podIf.mac && podIf.mac.toLowerCase() !== link.mac.toLowerCase())
    throw fail(`${args.ifname} has MAC ${link.mac}, prevResult says ${podIf.mac}`);
  if (link.mtu !== mtu) throw fail(`${args.ifname} has MTU ${link.mtu}, want ${mtu}`);
  if (!link.up) throw fail(`${args.ifname} is down`);
  const podIps = (prev.ips ?? []).filter((ip) => ip.interface === undefined || ip.interface === podIndex);
  for (const ip of podIps) {
    if (!link.addresses.includes(ip.address))
      throw fail(`${args.ifname} lacks address ${ip.address} (has ${link.addresses.join(', ') || 'none'})`);
  }
  const wantRoutes = podRouteSpecs(
    args.ifname,
    podIps.map((ip) => ({ cidr: ip.address, ...(ip.gateway ? { gateway: ip.gateway } : {}) })),
    prev.routes ?? [],
  );
  if (wantRoutes.length > 0) {
    for (const [i, route] of wantRoutes.entries()) {
      if (!routes.some((r) => routeIs(route, r))) {
        const r = prev.routes?.[i];
        throw fail(
          `${args.ifname} lacks route ${r?.dst}${route.via ? ` via ${route.via}` : ''}${route.table ? ` table ${route.table}` : ''} (prevResult routes[${i}])`,
        );
      }
    }
  }

  if (conf.ipamType) {
    await execIpam(ipamCallOf(conf.ipamType, 'CHECK', args, deps.env, ipamRulesOf(node)), deps.inProcessIpam);
  }
}

function parsePrevResult(raw: unknown): CniResult {
  if (raw === undefined)
    throw new CniError(
      CniErrorCode.invalidNetworkConfig,
      'invalid network config: prevResult: required for CHECK',
    );
  const parsed = parseCniResult(raw);
  if (!parsed.ok)
    throw new CniError(
      CniErrorCode.invalidNetworkConfig,
      `invalid network config: prevResult.${parsed.field}: ${parsed.message}`,
    );
  return parsed.result;
}
