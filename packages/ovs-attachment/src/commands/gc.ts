import { PortIds } from '@fabrik/api';
import { loadNetConf } from '../config.js';
import { execIpam, ipamCallOf, ipamRulesOf, ipamTypeAllowed, ipamTypeOf } from '../ipam.js';
import { listAttachments, removeAttachment } from '../cache.js';
import { HOST_VETH_PREFIX, parseHostVethAlias } from '../names.js';
import { loadNodeSettings, CniError, CniErrorCode, type CmdArgs } from '@fabrik/cni-skel';
import { attachmentVethDel, hostVethList } from '../pod-interface.js';
import type { PluginDeps } from './context.js';

/** One attachment of the network that the runtime no longer lists, with every trace found of it. */
interface StaleAttachment {
  containerId: string;
  ifname: string;
  /** Host veth names to delete (when they carry this attachment's mark). */
  hostIfnames: Set<string>;
  /** The ADD's config and CNI_ARGS, from the cache record. */
  stdinData?: string;
  cniArgs?: string;
}

/**
 * GC: every attachment of this network that the runtime does not list in
 * `cni.dev/valid-attachments` is removed, whichever trace of it is left: its OVS ports (found by
 * external_ids), its host veths (found by the fabrik-ovs ifalias) and its cache record. As in DEL,
 * a port or veth is deleted only when its mark names that attachment's container id and ifname.
 * Its IPs are released with the IPAM config it was added with (from the cache), else the current one.
 * Then GC goes to the network's IPAM plugin (when it speaks 1.1.0), which collects the leases of
 * attachments that left no trace here.
 */
export async function cmdGc(args: CmdArgs, deps: PluginDeps): Promise<void> {
  const node = await loadNodeSettings(deps.env);
  const { settings } = node;
  const rules = ipamRulesOf(node);
  const conf = loadNetConf(args.config, args.args, args.cniVersion);
  if (!conf.validAttachments) {
    throw new CniError(
      CniErrorCode.invalidNetworkConfig,
      'invalid network config: cni.dev/valid-attachments: required for GC',
    );
  }
  const key = (containerId: string, ifname: string) => `${containerId}\n${ifname}`;
  const valid = new Set(conf.validAttachments.map((a) => key(a.containerID, a.ifname)));
  const stale = new Map<string, StaleAttachment>();
  const note = (
    containerId: string,
    ifname: string,
    trace: Partial<StaleAttachment> & { hostIfname?: string },
  ) => {
    const k = key(containerId, ifname);
    if (valid.has(k)) return;
    const s = stale.get(k) ?? { containerId, ifname, hostIfnames: new Set<string>() };
    if (trace.hostIfname) s.hostIfnames.add(trace.hostIfname);
    if (trace.stdinData !== undefined) s.stdinData = trace.stdinData;
    if (trace.cniArgs !== undefined) s.cniArgs = trace.cniArgs;
    stale.set(k, s);
  };

  const ovs = await deps.openOvs(settings);
  try {
    for (const p of await ovs.findPorts(conf.name)) {
      const containerId = p.externalIds[PortIds.containerId];
      const ifname = p.externalIds[PortIds.ifname];
      if (containerId && ifname) note(containerId, ifname, {});
    }
    for (const v of await hostVethList(HOST_VETH_PREFIX)) {
      const owner = v.alias ? parseHostVethAlias(v.alias) : undefined;
      if (owner?.network === conf.name) note(owner.containerId, owner.ifname, { hostIfname: v.name });
    }
    for (const rec of await listAttachments(settings.cacheDir, conf.name)) {
      note(rec.containerId, rec.ifname, {
        hostIfname: rec.hostIfname,
        stdinData: rec.stdinData,
        cniArgs: rec.cniArgs,
      });
    }

    const errors: string[] = [];
    for (const s of stale.values()) {
      try {
        await ovs.deleteAttachmentPorts(s.containerId, s.ifname);
        for (const name of s.hostIfnames) await attachmentVethDel(name, s.containerId, s.ifname);
        const stdinData = s.stdinData ?? args.stdinData;
        const ipamType = ipamTypeOf(stdinData) ?? conf.ipamType;
        if (ipamType && !ipamTypeAllowed(ipamType, rules)) {
          deps.stderr(
            `fabrik-ovs: GC ${s.containerId}/${s.ifname}: IPAM ${ipamType} not called: not in ipam.allowedTypes of ${rules.settingsPath}\n`,
          );
        } else if (ipamType) {
          await execIpam(
            {
              type: ipamType,
              rules,
              command: 'DEL',
              stdinData,
              cniVersion: args.cniVersion,
              containerId: s.containerId,
              netns: '',
              ifname: s.ifname,
              cniArgs: s.cniArgs ?? '',
              path: args.path,
              env: deps.env,
            },
            deps.inProcessIpam,
          );
        }
        await removeAttachment(settings.cacheDir, conf.name, s.containerId, s.ifname);
      } catch (e) {
        errors.push(`${s.containerId}/${s.ifname}: ${(e as Error).message}`);
      }
    }
    // CNI 1.1: a plugin that delegates to IPAM forwards GC to it, with the valid attachments: it
    // releases leases with no other trace here (an ADD killed between IPAM and its record, say).
    if (conf.ipamType && ipamTypeAllowed(conf.ipamType, rules)) {
      await execIpam(ipamCallOf(conf.ipamType, 'GC', args, deps.env, rules), deps.inProcessIpam).catch(
        (e: unknown) => errors.push(`IPAM ${conf.ipamType} GC: ${(e as Error).message}`),
      );
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
