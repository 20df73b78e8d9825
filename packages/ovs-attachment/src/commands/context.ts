import type { OpenOvs } from '../ovs.js';

/** What the commands need from outside: the process environment and a way to reach OVSDB. */
export interface PluginDeps {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly openOvs: OpenOvs;
}
