import { SysctlSafeInterfaceName } from '@fabrik/api';

/**
 * Why `name` is not acceptable as CNI_IFNAME (the project's one interface-name rule, which also
 * keeps the name out of sysctl's namespace-wide entries), or undefined when it is.
 */
export function ifnameProblem(name: string): string | undefined {
  const checked = SysctlSafeInterfaceName.safeParse(name);
  return checked.success ? undefined : (checked.error.issues[0]?.message ?? 'not an interface name');
}
