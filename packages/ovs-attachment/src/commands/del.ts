import { loadNetConf, type NetConf } from '../config.js';
import { execIpam, ipamCallOf, ipamRulesOf, ipamTypeAllowed, ipamTypeOf } from '../ipam.js';
import { readAttachment, removeAttachment } from '../cache.js';
import { hostVethName } from '../names.js';
import { loadNodeSettings, CniErrorCode, isCniError, type CmdArgs } from '@fabrik/cni-skel';
import { attachmentVethDel } from '../pod-interface.js';
import type { PluginDeps } from './context.js';

/**
 * DEL: releases the IPs, deletes the OVS port and the veth, forgets the attachment. Idempotent:
 * it needs neither the Pod netns (the host veth name is derived from container id and ifname;
 * deleting it removes the Pod end too) nor the cache; whatever is already gone counts as done.
 * Only what carries this attachment's mark is deleted: a veth whose ifalias, a port whose
 * external_ids name this container id and ifname. The three steps run at the same time.
 *
 * DEL fails only when something of the attachment may be left that a retry could remove, since a
 * runtime retries a failed DEL forever (the DEL loops ovs-cni users report):
 * - an unreachable OVSDB: the veth and the IPs are released, the port is left to GC (it finds it
 *   by its external_ids) together with the cache record;
 * - a config ADD would refuse: ADD created nothing with it; the marked veth and port are deleted
 *   all the same (node-level fields, which DEL does not use, are ignored here), the IPAM is not
 *   called;
 * - a network config edited since the ADD: the IPs are released with the ADD's config (the
 *   record's), which the IPAM leased them with;
 * - a failing IPAM release fails DEL only when the cache holds a record of the attachment, the
 *   evidence that ADD got as far as asking the IPAM (without one, the IPAM never leased anything
 *   to it: its error is reported on stderr and DEL succeeds).
 */
export async function cmdDel(args: CmdArgs, deps: PluginDeps): Promise<void> {
  const node = await loadNodeSettings(deps.env);
  const { settings } = node;
  const rules = ipamRulesOf(node);
  const conf = tryLoadNetConf(args);
  const cached = conf
    ? await readAttachment(settings.cacheDir, conf.name, args.containerId, args.ifname)
    : undefined;
  const hostName = cached?.hostIfname ?? hostVethName(args.containerId, args.ifname);
  let portLeftForGc = false;
  const note = (what: string) => deps.stderr(`fabrik-ovs: DEL ${args.containerId}/${args.ifname}: ${what}\n`);

  const steps: Array<Promise<unknown>> = [
    attachmentVethDel(hostName, args.containerId, args.ifname).then((outcome) => {
      if (outcome === 'foreign') note(`host link ${hostName} is not this attachment's: left alone`);
    }),
    (async () => {
      try {
        const ovs = await deps.openOvs(settings);
        try {
          await ovs.deleteAttachmentPorts(args.containerId, args.ifname);
        } finally {
          ovs.close();
        }
      } catch (e) {
        if (!isCniError(e) || e.code !== CniErrorCode.tryAgainLater) throw e;
        portLeftForGc = true;
        note(`OVS port left for GC: ${e.message}`);
      }
    })(),
  ];
  // The addresses are released with the IPAM config they were leased with: the ADD's, from the
  // record, when there is one (the network config may have been edited since: another IPAM, or
  // none), else the current one.
  const ipam = cached
    ? { type: ipamTypeOf(cached.stdinData), stdinData: cached.stdinData }
    : { type: conf?.ipamType, stdinData: args.stdinData };
  if (ipam.type && !ipamTypeAllowed(ipam.type, rules)) {
    // ADD never ran it (or ran it before the node stopped allowing it): it is not executed now.
    note(`IPAM ${ipam.type} not called: not in ipam.allowedTypes of ${rules.settingsPath}`);
  } else if (ipam.type) {
    const ipamType = ipam.type;
    const call = { ...ipamCallOf(ipamType, 'DEL', args, deps.env, rules), stdinData: ipam.stdinData };
    steps.push(
      execIpam(call, deps.inProcessIpam).catch((e: unknown) => {
        if (cached) throw e;
        note(`IPAM ${ipamType} DEL failed, and no record shows it was ever asked: ${(e as Error).message}`);
      }),
    );
  }
  const outcomes = await Promise.allSettled(steps);
  const failed = outcomes.find((o): o is PromiseRejectedResult => o.status === 'rejected');
  // Keep the record while anything failed: the runtime retries DEL, and GC still finds it.
  if (failed) throw failed.reason;
  if (conf && !portLeftForGc)
    await removeAttachment(settings.cacheDir, conf.name, args.containerId, args.ifname).catch((e: unknown) =>
      note(`cache record not removed: ${(e as Error).message}`),
    );
}

/** The config, or undefined when ADD would refuse it (node-level fields aside: DEL ignores them). */
function tryLoadNetConf(args: CmdArgs): NetConf | undefined {
  try {
    return loadNetConf(args.config, args.args, args.cniVersion, { ignoreNodeFields: true });
  } catch (e) {
    if (isCniError(e)) return undefined;
    throw e;
  }
}
