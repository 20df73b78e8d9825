import { z } from 'zod';
import { parseIpJson } from './parse.js';

/** A forwarding-database entry (`bridge -j fdb show`). */
export interface ObservedFdbEntry {
  readonly mac: string;
  readonly dev: string;
  /** Remote VTEP of a VXLAN entry. */
  readonly dst: string | undefined;
  readonly vni: number | undefined;
  /** `self` (the device's own table, VXLAN) or `master` (the bridge's table). */
  readonly self: boolean;
  readonly master: string | undefined;
  /** `permanent`, `static` or '' (learnt). */
  readonly state: string;
  readonly flags: readonly string[];
}

const FdbJson = z.object({
  mac: z.string(),
  ifname: z.string(),
  dst: z.string().optional(),
  vni: z.number().optional(),
  master: z.string().optional(),
  flags: z.array(z.string()).optional(),
  state: z.string().optional(),
});

export const decodeFdbDump = (stdout: string): ObservedFdbEntry[] =>
  parseIpJson('bridge -j fdb dump', stdout, z.array(FdbJson)).map((f) => ({
    mac: f.mac.toLowerCase(),
    dev: f.ifname,
    dst: f.dst,
    vni: f.vni,
    self: (f.flags ?? []).includes('self'),
    master: f.master,
    state: f.state ?? '',
    flags: f.flags ?? [],
  }));
