import { loadNetConf } from '../config.js';
import { execIpam } from '../ipam.js';
import { readAttachment, removeAttachment } from '../cache.js';
import { hostVethName } from '../names.js';
import { hostLinkDel } from '../pod-interface.js';
import type { CmdArgs } from '../skel/index.js';
import type { PluginDeps } from './context.js';

/**
 * DEL: releases the IPs, deletes the OVS port and the veth, forgets the attachment. Idempotent:
 * it needs neither the Pod netns (the host veth name is derived from container id and ifname;
 * deleting it removes the Pod end too) nor the cache; whatever is already gone counts as done.
 * The IPAM release always runs. The three steps are independent and run at the same time.
 */
export async function cmdDel(args: CmdArgs, deps: PluginDeps): Promise<void> {
  const conf = loadNetConf(args.config, args.args, args.cniVersion);
  const cached = await readAttachment(conf.cacheDir, conf.name, args.containerId, args.ifname);
  const hostName = cached?.hostIfname ?? hostVethName(args.containerId, args.ifname);
  const steps: Array<Promise<unknown>> = [
    hostLinkDel(hostName),
    (async () => {
      const ovs = await deps.openOvs(conf);
      try {
        await ovs.deletePort(hostName);
      } finally {
        ovs.close();
      }
    })(),
  ];
  if (conf.ipamType) {
    steps.push(
      execIpam({
        type: conf.ipamType,
        command: 'DEL',
        stdinData: args.stdinData,
        cniVersion: args.cniVersion,
        containerId: args.containerId,
        netns: args.netns,
        ifname: args.ifname,
        cniArgs: args.args,
        path: args.path,
        env: deps.env,
      }),
    );
  }
  const outcomes = await Promise.allSettled(steps);
  const failed = outcomes.find((o): o is PromiseRejectedResult => o.status === 'rejected');
  // Keep the record while anything failed: the runtime retries DEL, and GC still finds it.
  if (failed) throw failed.reason;
  await removeAttachment(conf.cacheDir, conf.name, args.containerId, args.ifname);
}
