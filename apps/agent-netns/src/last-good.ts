import { z } from 'zod';
import { FrrIntentSchema, InterfaceAddress, MacAddress, Vni } from '@fabrik/api';
import type { NodeIntent } from './apply.js';

// The last desired state that applied and converged, kept in the state directory: restored when
// an apply fails, and applied at start before the source answers. It is the node's intent (what
// the kernel state and FRR configuration are derived from), not their rendering, so a newer agent
// derives them its own way. It holds BGP passwords: the store writes it 0600 in a 0700 directory.

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
});
export type StoredNodeIntent = z.infer<typeof StoredNodeIntent>;

export const storedIntent = (intent: NodeIntent): StoredNodeIntent => ({
  frr: intent.frr,
  layer2: [...intent.layer2].map(([vni, kernel]) => ({ vni, ...kernel })),
});

export const nodeIntentOf = (stored: StoredNodeIntent): NodeIntent => ({
  frr: stored.frr,
  layer2: new Map(stored.layer2.map(({ vni, ...kernel }) => [vni, kernel])),
});
