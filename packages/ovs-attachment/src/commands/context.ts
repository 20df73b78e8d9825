import type { InProcessIpam } from '../ipam.js';
import type { OpenOvs } from '../ovs.js';

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
}
