import { loadNetConf } from '../config.js';
import { execIpam } from '../ipam.js';
import { listAttachments, removeAttachment } from '../cache.js';
import { HOST_VETH_PREFIX, parseHostVethAlias } from '../names.js';
import { hostLinkDel, hostVethList } from '../pod-interface.js';
import { CniError, CniErrorCode, type CmdArgs } from '../skel/index.js';
import type { PluginDeps } from './context.js';

/**
 * GC: every attachment of this network that the runtime does not list in
 * `cni.dev/valid-attachments` is removed, whichever trace of it is left: its OVS port (found by
 * external_ids), its host veth (found by the fabrik-ovs ifalias) and its cache record. Its IPs are
 * released with the IPAM config it was added with (from the cache), else the current one.
 */
export async function cmdGc(args: CmdArgs, deps: PluginDeps): Promise<void> {
  const conf = loadNetConf(args.config, args.args, args.cniVersion);
  if (!conf.validAttachments) {
    throw new CniError(
      CniErrorCode.invalidNetworkConfig,
      'invalid network config: cni.dev/valid-attachments: required for GC',
    );
  }
  const key = (containerId: string, ifname: string) => `${containerId}\n${ifname}`;
  const valid = new Set(conf.validAttachments.map((a) => key(a.containerID, a.ifname)));

  type Stale = {
    containerId: string;
    ifname: string;
    hostIfname?: string;
    port?: string;
    stdinData?: string;
    cniArgs?: string;
    netns?: string;
  };
  const stale = new Map<string, Stale>();
  const note = (s: Stale) => {
    const k = key(s.containerId, s.ifname);
    if (!valid.has(k)) stale.set(k, { ...stale.get(k), ...s });
  };

  const ovs = await deps.openOvs(conf);
  try {
    for (const p of await ovs.findPorts(conf.name)) {
      const containerId = p.externalIds['fabrik-cni-container-id'];
      const ifname = p.externalIds['fabrik-cni-ifname'];
      if (containerId && ifname) note({ containerId, ifname, port: p.name, hostIfname: p.name });
    }
    for (const v of await hostVethList(HOST_VETH_PREFIX)) {
      const owner = v.alias ? parseHostVethAlias(v.alias) : undefined;
      if (owner?.network === conf.name)
        note({ containerId: owner.containerId, ifname: owner.ifname, hostIfname: v.name });
    }
    for (const rec of await listAttachments(conf.cacheDir, conf.name)) {
      note({
        containerId: rec.containerId,
        ifname: rec.ifname,
        hostIfname: rec.hostIfname,
        stdinData: rec.stdinData,
        cniArgs: rec.cniArgs,
        netns: rec.netns,
      });
    }

    const errors: string[] = [];
    for (const s of stale.values()) {
      try {
        if (s.port) await ovs.deletePort(s.port);
        if (s.hostIfname) await hostLinkDel(s.hostIfname);
        const stdinData = s.stdinData ?? args.stdinData;
        const ipamType = ipamTypeOf(stdinData) ?? conf.ipamType;
        if (ipamType) {
          await execIpam({
            type: ipamType,
            command: 'DEL',
            stdinData,
            cniVersion: args.cniVersion,
            containerId: s.containerId,
            netns: '',
            ifname: s.ifname,
            cniArgs: s.cniArgs ?? '',
            path: args.path,
            env: deps.env,
          });
        }
        await removeAttachment(conf.cacheDir, conf.name, s.containerId, s.ifname);
      } catch (e) {
        errors.push(`${s.containerId}/${s.ifname}: ${(e as Error).message}`);
      }
    }
    if (errors.length > 0)
      throw new CniError(
        CniErrorCode.internal,
        `GC could not remove ${errors.length} attachment(s)`,
        errors.join('; '),
      );
  } finally {
    ovs.close();
  }
}

function ipamTypeOf(stdinData: string): string | undefined {
  try {
    const t = (JSON.parse(stdinData) as { ipam?: { type?: unknown } }).ipam?.type;
    return typeof t === 'string' ? t : undefined;
  } catch {
    return undefined;
  }
}
