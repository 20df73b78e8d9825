import type { OpenOvs } from '../ovs.js';

/**
 * What the commands need from outside: the invocation's environment (the plugin process's, or the
 * one agent-host received with the request), a way to reach OVSDB, and where notes for the
 * runtime's log go (the process's stderr, or the answer agent-host sends back).
 */
export interface PluginDeps {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly openOvs: OpenOvs;
  readonly stderr: (text: string) => void;
}
