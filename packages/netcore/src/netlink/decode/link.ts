import { z } from 'zod';
import {
  decodeBridgePort,
  decodeKindSpec,
  type BridgePortFlags,
  type ObservedLinkSpec,
} from '../links/index.js';
import { parseIpJson } from './parse.js';

/** An address as the kernel has it on a link. */
export interface ObservedAddress {
  /** `ADDRESS/PREFIXLEN`, as iproute2 prints it (IPv6 compressed, lower case). */
  readonly address: string;
  readonly family: 'inet' | 'inet6';
  readonly nodad: boolean;
  readonly noprefixroute: boolean;
  readonly scope: string;
}

/** A link as observed, in the same model the desired state uses. */
export interface ObservedLink {
  readonly ifindex: number;
  /** Kind-specific spec with the common attributes filled in (mtu, mac, up = admin state, master or null). */
  readonly spec: ObservedLinkSpec & {
    readonly mtu: number;
    readonly up: boolean;
    readonly master: string | null;
  };
  /** The ifalias: fabrik's ownership mark lives here. */
  readonly alias: string | undefined;
  /** Carrier and operational state is up (`LOWER_UP`). */
  readonly lowerUp: boolean;
  /** Bridge port flags when the link is a bridge port. */
  readonly port: Required<BridgePortFlags> | undefined;
  /** Addresses, when the dump included them (`ip -j -d addr show`). */
  readonly addresses: readonly ObservedAddress[] | undefined;
  /** Set when the lower device or veth peer lives in another netns. */
  readonly linkNetnsId: number | undefined;
}

const AddrInfoJson = z.looseObject({
  family: z.string(),
  local: z.string().optional(),
  prefixlen: z.number().optional(),
  scope: z.string().optional(),
  nodad: z.boolean().optional(),
  noprefixroute: z.boolean().optional(),
});

// info_data / info_slave_data: read field by field with type checks (links/*), so only "is an
// object" is checked here; a full record check of 40 bridge options per link costs more than
// the rest of the decode.
const Record = z.custom<Readonly<Record<string, unknown>>>(
  (v) => typeof v === 'object' && v !== null && !Array.isArray(v),
  'expected an object',
);

// Only the fields this layer reads are checked: iproute2 adds fields between versions. Loose
// objects pass the other ~20 fields through instead of copying the object without them: twice
// as fast on a dump of 1000 links, which every reconcile decodes.
const LinkJson = z.looseObject({
  ifindex: z.number(),
  ifname: z.string(),
  flags: z.array(z.string()),
  mtu: z.number(),
  address: z.string().optional(),
  master: z.string().optional(),
  ifalias: z.string().optional(),
  link: z.string().nullable().optional(),
  link_netnsid: z.number().optional(),
  linkinfo: z
    .looseObject({
      info_kind: z.string().optional(),
      info_data: Record.optional(),
      info_slave_kind: z.string().optional(),
      info_slave_data: Record.optional(),
    })
    .optional(),
  addr_info: z.array(AddrInfoJson).optional(),
});
type LinkJson = z.infer<typeof LinkJson>;

const LinkDump = z.array(LinkJson);

function toObservedAddresses(info: LinkJson['addr_info']): ObservedAddress[] | undefined {
  if (!info) return undefined;
  const out: ObservedAddress[] = [];
  for (const a of info) {
    if ((a.family !== 'inet' && a.family !== 'inet6') || a.local === undefined || a.prefixlen === undefined)
      continue;
    out.push({
      address: `${a.local}/${a.prefixlen}`,
      family: a.family,
      nodad: a.nodad ?? false,
      noprefixroute: a.noprefixroute ?? false,
      scope: a.scope ?? 'global',
    });
  }
  return out;
}

/** One link entry of `ip -j -d link show` / `ip -j -d addr show`. */
export function toObservedLink(j: LinkJson): ObservedLink {
  const info = j.linkinfo;
  const kindSpec = decodeKindSpec(j.ifname, info?.info_kind, {
    infoData: info?.info_data ?? {},
    lowerLink: j.link ?? undefined,
    linkNetnsId: j.link_netnsid,
  });
  const spec = {
    ...kindSpec,
    mtu: j.mtu,
    up: j.flags.includes('UP'),
    master: j.master ?? null,
    ...(j.address === undefined ? {} : { mac: j.address }),
  };
  return {
    ifindex: j.ifindex,
    spec,
    alias: j.ifalias,
    lowerUp: j.flags.includes('LOWER_UP'),
    port: info?.info_slave_kind === 'bridge' ? decodeBridgePort(info.info_slave_data ?? {}) : undefined,
    addresses: toObservedAddresses(j.addr_info),
    linkNetnsId: j.link_netnsid,
  };
}

/** Decodes the stdout of `ip -j -d link show` or `ip -j -d addr show`. */
export const decodeLinkDump = (stdout: string): ObservedLink[] =>
  parseIpJson('ip -j -d link/addr dump', stdout, LinkDump).map(toObservedLink);
