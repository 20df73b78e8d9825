import { canonicalCidr } from './ip-text.js';
import type { AddressSpec } from './objects.js';
import type { PlanOp } from './plan-ops.js';

// IPv6 link-local addresses are the kernel's (addr_gen_mode), not the desired state's.
const isKernelLinkLocal = (a: { address: string; family: string }): boolean =>
  a.family === 'inet6' && /^fe[89ab]/i.test(a.address);

/** The addresses to add (or replace, for a changed `nodad`) on `dev`; pushes deletions to `deletes`. */
export function planAddresses(
  dev: string,
  want: readonly AddressSpec[],
  have: readonly { address: string; family: string; nodad: boolean }[],
  deletes: PlanOp[],
): PlanOp[] {
  const out: PlanOp[] = [];
  const haveByAddr = new Map(have.map((a) => [a.address, a]));
  const wanted = new Set<string>();
  for (const a of want) {
    const key = canonicalCidr(a.address);
    wanted.add(key);
    const h = haveByAddr.get(key);
    if (!h) out.push({ op: 'addr-add', dev, address: a, replace: false });
    else if (a.nodad !== undefined && a.nodad !== h.nodad)
      out.push({ op: 'addr-add', dev, address: a, replace: true });
  }
  for (const h of have) {
    if (!wanted.has(h.address) && !isKernelLinkLocal(h))
      deletes.push({ op: 'addr-del', dev, address: { address: h.address } });
  }
  return out;
}
