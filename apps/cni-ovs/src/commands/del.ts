import { loadNetConf } from '../config.js';
import { execIpam, ipamCallOf } from '../ipam.js';
import { readAttachment, removeAttachment } from '../cache.js';
import { hostVethName } from '../names.js';
import { hostLinkDel } from '../pod-interface.js';
import { CniErrorCode, isCniError, type CmdArgs } from '../skel/index.js';
import type { PluginDeps } from './context.js';

/**
 * DEL: releases the IPs, deletes the OVS port and the veth, forgets the attachment. Idempotent:
 * it needs neither the Pod netns (the host veth name is derived from container id and ifname;
 * deleting it removes the Pod end too) nor the cache; whatever is already gone counts as done.
 * The IPAM release always runs. The three steps are independent and run at the same time.
 *
 * An unreachable OVSDB does not fail DEL: failing would make the runtime retry DEL forever
 * (the DEL loops ovs-cni users report). The port is left to GC, which finds it by its
 * external_ids, and the cache record is kept for it.
 */
export async function cmdDel(args: CmdArgs, deps: PluginDeps): Promise<void> {
  const conf = loadNetConf(args.config, args.args, args.cniVersion);
  const cached = await readAttachment(conf.cacheDir, conf.name, args.containerId, args.ifname);
  const hostName = cached?.hostIfname ?? hostVethName(args.containerId, args.ifname);
  let portLeftForGc = false;
  const steps: Array<Promise<unknown>> = [
    hostLinkDel(hostName),
    (async () => {
      try {
        const ovs = await deps.openOvs(conf);
        try {
          await ovs.deletePort(hostName);
        } finally {
          ovs.close();
        }
      } catch (e) {
        if (!isCniError(e) || e.code !== CniErrorCode.tryAgainLater) throw e;
        portLeftForGc = true;
        process.stderr.write(`fabrik-ovs: DEL: OVS port ${hostName} left for GC: ${e.message}\n`);
      }
    })(),
  ];
  if (conf.ipamType) {
    steps.push(execIpam(ipamCallOf(conf.ipamType, 'DEL', args, deps.env)));
  }
  const outcomes = await Promise.allSettled(steps);
  const failed = outcomes.find((o): o is PromiseRejectedResult => o.status === 'rejected');
  // Keep the record while anything failed: the runtime retries DEL, and GC still finds it.
  if (failed) throw failed.reason;
  if (!portLeftForGc) await removeAttachment(conf.cacheDir, conf.name, args.containerId, args.ifname);
}
