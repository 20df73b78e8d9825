import type { InProcessIpam } from '../ipam.js';
import type { OpenOvs } from '../ovs.js';
import type { NetConf } from '../config.js';

/** What ADD is asked to attach, as an admission decision needs it. */
export interface AttachmentRequest {
  /** The validated network config (name, vlan, trunks, the Pod's namespace from CNI_ARGS). */
  readonly conf: NetConf;
  /** The network config as received (the IPAM section names the pools). */
  readonly config: Readonly<Record<string, unknown>>;
  /** CNI_ARGS as received. */
  readonly cniArgs: string;
}

/**
 * What the commands need from outside: the invocation's environment (the plugin process's, or the
 * one agent-host received with the request), a way to reach OVSDB, where notes for the runtime's
 * log go (the process's stderr, or the answer agent-host sends back), and the IPAM plugins the
 * caller runs itself.
 */
export interface PluginDeps {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly openOvs: OpenOvs;
  readonly stderr: (text: string) => void;
  /** IPAM plugins run in this process rather than executed (agent-host: fabrik-ipam); none: all are executed. */
  readonly inProcessIpam?: InProcessIpam;
  /**
   * Decides whether the Pod may attach, before ADD creates anything (agent-host: the namespaces a
   * Layer2Network or IPPool allows); throws a CniError when it may not. None: every attachment is
   * admitted (the plugin run by itself has no view of the cluster).
   */
  readonly admit?: (request: AttachmentRequest) => Promise<void>;
}
