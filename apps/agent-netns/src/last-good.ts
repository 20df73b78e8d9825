import { z } from 'zod';
import {
  FrrIntentSchema,
  InterfaceAddress,
  MacAddress,
  parseBgpPeering,
  parseLayer2Network,
  parseVrf,
  Vni,
  type ParseResult,
} from '@fabrik/api';
import type { NodeIntent } from './apply.js';
import { NO_OBJECTS, type NodeObjects } from './node-objects.js';

// The last desired state that applied and converged, kept in the state directory: restored when
// an apply fails, and applied at start before the source answers. It is the node's intent (what
// the kernel state and FRR configuration are derived from), not their rendering, so a newer agent
// derives them its own way; and the objects it was built from, so that an object refused later
// keeps the version applied here. It holds BGP passwords: the store writes it 0600 in a 0700
// directory.

export const StoredNodeIntent = z.object({
  frr: FrrIntentSchema,
  layer2: z.array(
    z.object({
      vni: Vni,
      mtu: z.number().int().min(68).max(65535).optional(),
      anycastGateways: z.array(InterfaceAddress).readonly().optional(),
      anycastMac: MacAddress.optional(),
      neighSuppression: z.boolean().optional(),
    }),
  ),
  /** Absent in files of agents before per-object outcomes: no object has a kept version then. */
  objects: z
    .object({
      vrfs: z.array(z.unknown()),
      layer2Networks: z.array(z.unknown()),
      bgpPeerings: z.array(z.unknown()),
      passwords: z.record(z.string(), z.string()),
    })
    .optional(),
});
export type StoredNodeIntent = z.infer<typeof StoredNodeIntent>;

export const storedIntent = (intent: NodeIntent, objects: NodeObjects): StoredNodeIntent => ({
  frr: intent.frr,
  layer2: [...intent.layer2].map(([vni, kernel]) => ({ vni, ...kernel })),
  objects: {
    vrfs: [...objects.vrfs],
    layer2Networks: [...objects.layer2Networks],
    bgpPeerings: [...objects.bgpPeerings],
    passwords: Object.fromEntries(objects.passwords),
  },
});

export const nodeIntentOf = (stored: StoredNodeIntent): NodeIntent => ({
  frr: stored.frr,
  layer2: new Map(stored.layer2.map(({ vni, ...kernel }) => [vni, kernel])),
});

/** The objects of a stored state, each validated again; one this agent cannot read is left out. */
export function appliedObjectsOf(stored: StoredNodeIntent | undefined): NodeObjects {
  if (stored?.objects === undefined) return NO_OBJECTS;
  const valid = <T>(list: readonly unknown[], parse: (o: unknown) => ParseResult<T>): T[] =>
    list.flatMap((o) => {
      const r = parse(o);
      return r.ok ? [r.value] : [];
    });
  return {
    vrfs: valid(stored.objects.vrfs, (o) => parseVrf(o, { unknownFields: 'ignore' })),
    layer2Networks: valid(stored.objects.layer2Networks, (o) =>
      parseLayer2Network(o, { unknownFields: 'ignore' }),
    ),
    bgpPeerings: valid(stored.objects.bgpPeerings, (o) => parseBgpPeering(o, { unknownFields: 'ignore' })),
    passwords: new Map(Object.entries(stored.objects.passwords)),
  };
}
