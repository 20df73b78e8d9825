import type { FrrConfigChange } from '../config-text.js';

/**
 * Whether a reload whose changes are `changes` (from frr-reload.py --test or {@link diffConfigLines})
 * can skip frr-reload.py --reload: the whole file through one `vtysh -f` (as FRR loads it at start)
 * adds what it adds, and the commands this returns, in the same pass, remove what it removes;
 * `undefined` when the reload needs frr-reload.py. Pure. The removals made here:
 *
 * - zebra shows `no ip forwarding` (`no ipv6 forwarding`) while the kernel does not forward, and a
 *   configuration without that line wants FRR's default, forwarding: frr-reload.py removes the line
 *   with the command `ip forwarding`, which is what this returns for it. A fresh FRR in a new
 *   namespace shows both (a namespace starts with forwarding off), and its first reload, which
 *   otherwise only adds, stays one `vtysh -f` instead of three frr-reload.py runs (about 20 s in
 *   the lab).
 * - a whole `vni N` block of BGP's `address-family l2vpn evpn` (a Layer2Network gone): `no vni N`
 *   in that address family, as frr-reload.py removes a context. Any other removal, a line of a
 *   `vni` block that stays included, is frr-reload.py's.
 *
 * frr-reload.py lists some removals as `no ...` lines to add (a prefix-list entry added by hand,
 * for one): applying the file would not remove them, so such a line needs frr-reload.py too. A `no`
 * line inside a block that `running` does not have (`no bgp default ipv4-unicast` of a new
 * `router bgp`) is part of what is added.
 */
export function vtyshApplyCommands(
  changes: { added: readonly FrrConfigChange[]; removed: readonly FrrConfigChange[] },
  running: string,
): string[] | undefined {
  const forwarding = /^no (ip|ipv6) forwarding$/;
  const isEvpnFamily = (context: readonly string[]) =>
    context.length >= 2 && /^router bgp \d+$/.test(context[0]!) && context[1] === 'address-family l2vpn evpn';
  const removedVniBlocks = changes.removed.filter(
    (c) => c.context.length === 2 && isEvpnFamily(c.context) && /^vni \d+$/.test(c.line),
  );
  const removedBlockKeys = new Set(removedVniBlocks.map((c) => [...c.context, c.line].join('\n')));
  const commands: string[] = [];
  for (const c of changes.removed) {
    if (c.context.length === 0 && forwarding.test(c.line)) commands.push(c.line.slice('no '.length));
    else if (removedVniBlocks.includes(c)) {
      const [router, family] = c.context as [string, string];
      commands.push(router, family, `no ${c.line}`, 'exit-address-family', 'exit');
    } else if (!(c.context.length > 2 && removedBlockKeys.has(c.context.slice(0, 3).join('\n'))))
      return undefined;
  }
  const runningLines = new Set(running.split('\n').map((l) => l.trimEnd()));
  const inNewBlock = (c: FrrConfigChange) => c.context[0] !== undefined && !runningLines.has(c.context[0]);
  return changes.added.some((c) => /^no\s/.test(c.line.trim()) && !inNewBlock(c)) ? undefined : commands;
}
