import type fc from 'fast-check';
import { frrIntentArbitrary } from '@fabrik/testkit/arbitraries';
import type { FrrIntentInput } from '../src/intent.js';

// @fabrik/testkit's intent arbitrary predates the rules that refuse reserved AS numbers and the
// reserved well-known community range (issue 36): it still draws 65535, 23456, 4294967295, `0:0`
// and `65535:NN`. testkit is being reworked elsewhere; until its arbitrary draws only valid
// numbers, this moves each reserved value to a valid neighbour (never filters, so no case is
// lost). Delete this file once testkit's arbitrary follows the rules.

const RESERVED_ASN: Readonly<Record<number, number>> = { 23456: 23457, 65535: 65534, 4294967295: 4294967294 };
const RESERVED_COMMUNITY = /^(?:0:0|65535:(\d+))$/;

function validNumbers(value: unknown, key: string): unknown {
  if (typeof value === 'number' && (key === 'asn' || key === 'remoteAs')) return RESERVED_ASN[value] ?? value;
  if (typeof value === 'string') {
    const m = RESERVED_COMMUNITY.exec(value);
    return m === null ? value : `65534:${m[1] ?? '1'}`;
  }
  if (Array.isArray(value)) return value.map((v) => validNumbers(v, key));
  if (typeof value === 'object' && value !== null)
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, validNumbers(v, k)]));
  return value;
}

/** A session whose local AS became its remote AS or the node's loses `localAs` (a cross-field rule). */
function withoutClashingLocalAs(intent: FrrIntentInput): FrrIntentInput {
  const clean = <S extends { remoteAs: unknown; localAs?: { asn: number } }>(s: S): S => {
    if (s.localAs === undefined || (s.localAs.asn !== intent.asn && s.localAs.asn !== s.remoteAs)) return s;
    const { localAs: _dropped, ...rest } = s;
    return rest as S;
  };
  return {
    ...intent,
    underlay: intent.underlay && {
      ...intent.underlay,
      neighbors: intent.underlay.neighbors?.map(clean),
    },
    vrfs: intent.vrfs?.map((v) => ({ ...v, bgpPeers: v.bgpPeers?.map(clean) })),
  };
}

/** testkit's valid routing intents, with reserved AS numbers and communities moved to valid ones. */
export function validFrrIntentArbitrary(): fc.Arbitrary<FrrIntentInput> {
  return frrIntentArbitrary().map((intent) =>
    withoutClashingLocalAs(validNumbers(intent, '') as FrrIntentInput),
  );
}
