import { z } from 'zod';
import { LinkAttrsSchema } from './common.js';

/** A dummy device (a place for addresses, for example a VTEP loopback). Kernel kind `dummy` (module `dummy`). */
export const DummySpecSchema = LinkAttrsSchema.extend({ kind: z.literal('dummy') });
export type DummySpec = z.infer<typeof DummySpecSchema>;

export const dummyTypeArgs = (_spec: DummySpec): string[] => ['type', 'dummy'];
export const decodeDummy = (name: string): DummySpec => ({ kind: 'dummy', name });
