import { MacAddress, nonUnicastKind } from '@fabrik/api';
import { z } from 'zod';
import { CniError, CniErrorCode } from './errors.js';

/** Splits CNI_ARGS (`K=V;K2=V2`) into pairs, in order. A pair without '=' is an error naming it. */
export function parseCniArgs(text: string): Array<[string, string]> {
  if (!text) return [];
  return text
    .split(';')
    .filter(Boolean)
    .map((pair) => {
      const at = pair.indexOf('=');
      if (at <= 0)
        throw new CniError(
          CniErrorCode.invalidEnvironment,
          `CNI_ARGS: invalid pair ${JSON.stringify(pair)} (want KEY=VALUE)`,
        );
      return [pair.slice(0, at), pair.slice(at + 1)];
    });
}

/**
 * An IP to request, with or without prefix length (IPAM plugins accept both): a unicast address,
 * since it becomes the Pod interface's own (no multicast, broadcast, loopback or unspecified).
 */
export const RequestedIp = z.union([z.ipv4(), z.ipv6(), z.cidrv4(), z.cidrv6()]).superRefine((ip, ctx) => {
  const kind = nonUnicastKind(ip);
  if (kind) ctx.addIssue({ code: 'custom', message: `${ip} is a ${kind} address, not a unicast one` });
});

/** What fabrik's plugins read from CNI_ARGS (the keys of runtimes, Multus and the kubelet). */
export interface CniArgs {
  /** MAC: the Pod interface's MAC. */
  readonly mac?: string;
  /** IP: requested addresses (comma separated). */
  readonly ips?: string[];
  /** K8S_POD_NAME, K8S_POD_NAMESPACE: the Pod. */
  readonly podName?: string;
  readonly podNamespace?: string;
}

const KNOWN_CNI_ARGS = new Set([
  'IgnoreUnknown',
  'K8S_POD_NAME',
  'K8S_POD_NAMESPACE',
  'K8S_POD_INFRA_CONTAINER_ID',
  'K8S_POD_UID',
  'MAC',
  'IP',
]);

/**
 * Reads CNI_ARGS: the keys above, each checked (MAC, IP) and named when invalid (code 4). Any other
 * key is an error unless `IgnoreUnknown=1` (or true), as in libcni's `LoadArgs`.
 */
export function readCniArgs(text: string): CniArgs {
  const pairs = parseCniArgs(text);
  const ignoreUnknown = pairs.some(([k, v]) => k === 'IgnoreUnknown' && ['1', 'true', 'True'].includes(v));
  const out: { mac?: string; ips?: string[]; podName?: string; podNamespace?: string } = {};
  for (const [key, value] of pairs) {
    if (!KNOWN_CNI_ARGS.has(key)) {
      if (ignoreUnknown) continue;
      throw new CniError(
        CniErrorCode.invalidEnvironment,
        `CNI_ARGS: unknown key ${key} (set IgnoreUnknown=1 to ignore it)`,
      );
    }
    if (key === 'MAC') out.mac = fieldOrThrow(MacAddress, value, 'CNI_ARGS MAC');
    if (key === 'IP')
      out.ips = value.split(',').map((ip) => fieldOrThrow(RequestedIp, ip.trim(), 'CNI_ARGS IP'));
    if (key === 'K8S_POD_NAME') out.podName = value;
    if (key === 'K8S_POD_NAMESPACE') out.podNamespace = value;
  }
  return out;
}

function fieldOrThrow<T>(schema: z.ZodType<T>, value: string, field: string): T {
  const r = schema.safeParse(value);
  if (!r.success)
    throw new CniError(
      CniErrorCode.invalidEnvironment,
      `${field}: ${JSON.stringify(value)} ${r.error.issues[0]?.message ?? 'is invalid'}`,
    );
  return r.data;
}
