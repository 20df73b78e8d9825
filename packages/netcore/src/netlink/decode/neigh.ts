import { z } from 'zod';
import { parseIpJson } from './parse.js';

/** A neighbour (ARP/NDP) entry (`ip -j neigh show`). */
export interface ObservedNeighbour {
  readonly dev: string;
  readonly address: string;
  readonly lladdr: string | undefined;
  /** Lower-case NUD states, for example `permanent`, `reachable`. */
  readonly state: readonly string[];
}

const NeighJson = z.object({
  dst: z.string(),
  dev: z.string().optional(),
  lladdr: z.string().optional(),
  state: z.array(z.string()).optional(),
});

export const decodeNeighDump = (stdout: string): ObservedNeighbour[] =>
  parseIpJson('ip -j neigh dump', stdout, z.array(NeighJson)).map((n) => ({
    dev: n.dev ?? '',
    address: n.dst,
    lladdr: n.lladdr,
    state: (n.state ?? []).map((s) => s.toLowerCase()),
  }));
