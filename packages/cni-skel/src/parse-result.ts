import { VlanId } from '@fabrik/api';
import { z } from 'zod';
import type { CniResult } from './result.js';

// Results that come from outside (an IPAM plugin's output, the runtime's prevResult) are checked
// before use: a result is other software's output, and `null` where an object belongs must be an
// error naming the field, not a TypeError deep inside a command. Fields of newer versions and
// unknown fields are allowed; what is read must have the right type.

const uint = z.number().int().min(0);
const InterfaceSchema = z.looseObject({
  name: z.string(),
  mac: z.string().optional(),
  mtu: uint.optional(),
  sandbox: z.string().optional(),
  socketPath: z.string().optional(),
  pciID: z.string().optional(),
});
const IpConfigSchema = z.looseObject({
  address: z.string(),
  gateway: z.string().optional(),
  interface: uint.optional(),
  /** 0.3.x and 0.4.0 only; dropped. */
  version: z.string().optional(),
});
const RouteSchema = z.looseObject({
  dst: z.string(),
  gw: z.string().optional(),
  mtu: uint.optional(),
  advmss: uint.optional(),
  priority: uint.optional(),
  table: uint.optional(),
  scope: uint.optional(),
});
const DnsSchema = z.looseObject({
  nameservers: z.array(z.string()).optional(),
  domain: z.string().optional(),
  search: z.array(z.string()).optional(),
  options: z.array(z.string()).optional(),
});
const FabrikSchema = z.looseObject({ vlan: VlanId.optional(), heldAlready: z.boolean().optional() });
const ResultSchema = z.looseObject({
  interfaces: z.array(InterfaceSchema).optional(),
  ips: z.array(IpConfigSchema).optional(),
  routes: z.array(RouteSchema).optional(),
  dns: DnsSchema.optional(),
  fabrik: FabrikSchema.optional(),
});

/**
 * Reads a result of any supported version into the internal (1.1.0) form. On a malformed one,
 * returns the path of the first bad field (`ips.0.address`) and what is wrong with it.
 */
export function parseCniResult(
  raw: unknown,
): { ok: true; result: CniResult } | { ok: false; field: string; message: string } {
  const parsed = ResultSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return {
      ok: false,
      field: issue?.path.map(String).join('.') || '(result)',
      message: issue?.message ?? '',
    };
  }
  const r = parsed.data;
  const result: CniResult = {};
  if (r.interfaces)
    result.interfaces = r.interfaces.map(({ name, mac, mtu, sandbox, socketPath, pciID }) =>
      withoutUndefined({ name, mac, mtu, sandbox, socketPath, pciID }),
    );
  if (r.ips)
    result.ips = r.ips.map(({ address, gateway, interface: i }) =>
      withoutUndefined({ address, gateway, interface: i }),
    );
  if (r.routes)
    result.routes = r.routes.map(({ dst, gw, mtu, advmss, priority, table, scope }) =>
      withoutUndefined({ dst, gw, mtu, advmss, priority, table, scope }),
    );
  if (r.dns) {
    const { nameservers, domain, search, options } = r.dns;
    result.dns = withoutUndefined({ nameservers, domain, search, options });
  }
  if (r.fabrik) result.fabrik = withoutUndefined({ vlan: r.fabrik.vlan, heldAlready: r.fabrik.heldAlready });
  return { ok: true, result };
}

function withoutUndefined<T extends object>(o: T): { [K in keyof T]: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as {
    [K in keyof T]: Exclude<T[K], undefined>;
  };
}
