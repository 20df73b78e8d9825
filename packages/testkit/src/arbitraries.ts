import fc from 'fast-check';
import type { FrrIntentInput } from '@fabrik/api';

// fast-check generators of routing intents for property tests: every generated intent is valid
// (cross-field rules included), so a test can say "every valid intent renders to a configuration
// FRR accepts". Runs are bounded and seeded by propertyRunOptions().

/** fast-check options: a fixed seed and a small count in `npm test`; FABRIK_PROPERTY_RUNS / _SEED for more. */
export function propertyRunOptions(defaultRuns: number): { numRuns: number; seed: number } {
  const runs = Number(process.env.FABRIK_PROPERTY_RUNS ?? defaultRuns);
  const seed = Number(process.env.FABRIK_PROPERTY_SEED ?? 20261130);
  return { numRuns: Number.isInteger(runs) && runs > 0 ? runs : defaultRuns, seed };
}

const hex = (n: number) => n.toString(16);

/** An IPv4 network without host bits. */
export const ipv4Network = (maxLength = 32): fc.Arbitrary<string> =>
  fc
    .tuple(fc.integer({ min: 0, max: 0xffffffff }), fc.integer({ min: 0, max: maxLength }))
    .map(([value, len]) => {
      const masked = len === 0 ? 0 : (value & (0xffffffff << (32 - len))) >>> 0;
      const octets = [24, 16, 8, 0].map((s) => (masked >>> s) & 0xff);
      return `${octets.join('.')}/${len}`;
    });

/** An IPv6 network without host bits, written as its leading groups and `::` (or all eight groups). */
export const ipv6Network = (maxLength = 128): fc.Arbitrary<string> =>
  fc
    .tuple(
      fc.array(fc.integer({ min: 0, max: 0xffff }), { minLength: 8, maxLength: 8 }),
      fc.integer({ min: 0, max: maxLength }),
    )
    .map(([groups, len]) => {
      const kept = Math.ceil(len / 16);
      const masked = groups.map((g, i) => {
        if (i < kept - 1) return g;
        if (i >= kept) return 0;
        const bits = len - 16 * i;
        return g & (0xffff << (16 - bits)) & 0xffff;
      });
      if (kept === 0) return `::/${len}`;
      if (kept === 8) return `${masked.map(hex).join(':')}/${len}`;
      return `${masked.slice(0, kept).map(hex).join(':')}::/${len}`;
    });

const ipv4Address = fc.ipV4();
/** IPv6 addresses in hex groups (no embedded IPv4). */
const ipv6Address = fc
  .array(fc.integer({ min: 0, max: 0xffff }), { minLength: 8, maxLength: 8 })
  .map((groups) => groups.map(hex).join(':'));

const community = fc.oneof(
  fc
    .tuple(fc.integer({ min: 0, max: 0xffff }), fc.integer({ min: 0, max: 0xffff }))
    .map(([a, b]) => `${a}:${b}`),
  fc.constantFrom('no-export', 'no-advertise', 'local-AS', 'no-peer', 'blackhole', 'graceful-shutdown'),
);
/** Printable ASCII without spaces, 1-80 characters. */
const password = fc.string({
  unit: fc.integer({ min: 0x21, max: 0x7e }).map((c) => String.fromCharCode(c)),
  minLength: 1,
  maxLength: 80,
});
const remoteAs = fc.oneof(
  fc.constantFrom('internal' as const, 'external' as const),
  fc.integer({ min: 1, max: 4_294_967_295 }),
);
const timers = fc.record({
  keepalive: fc.integer({ min: 0, max: 65535 }),
  hold: fc.oneof(fc.constant(0), fc.integer({ min: 3, max: 65535 })),
});
const bfdTimers = fc.record(
  {
    minRx: fc.integer({ min: 10, max: 60000 }),
    minTx: fc.integer({ min: 10, max: 60000 }),
    multiplier: fc.integer({ min: 2, max: 255 }),
  },
  { requiredKeys: [] },
);
const routeTarget = fc.oneof(
  fc
    .tuple(fc.integer({ min: 1, max: 0xffff }), fc.integer({ min: 0, max: 0xffffffff }))
    .map(([a, n]) => `${a}:${n}`),
  fc
    .tuple(fc.integer({ min: 0x10000, max: 0xffffffff }), fc.integer({ min: 0, max: 0xffff }))
    .map(([a, n]) => `${a}:${n}`),
  fc.tuple(ipv4Address, fc.integer({ min: 0, max: 0xffff })).map(([a, n]) => `${a}:${n}`),
);
const routeTargets = fc.record({
  import: fc.array(routeTarget, { minLength: 1, maxLength: 3 }),
  export: fc.array(routeTarget, { minLength: 1, maxLength: 3 }),
});

/** A prefix match with ge/le that fit the prefix length. */
const prefixMatch = (families: readonly ('ipv4' | 'ipv6')[]) =>
  fc
    .constantFrom(...families)
    .chain((f) => (f === 'ipv4' ? ipv4Network(31) : ipv6Network(127)))
    .chain((cidr) => {
      const len = Number(cidr.split('/')[1]);
      const max = cidr.includes(':') ? 128 : 32;
      return fc
        .tuple(
          fc.option(fc.integer({ min: len + 1, max }), { nil: undefined }),
          fc.integer({ min: len + 1, max }),
        )
        .chain(([ge, le]) =>
          fc.constantFrom(
            { cidr },
            { cidr, le },
            ...(ge === undefined
              ? []
              : [
                  { cidr, ge },
                  { cidr, ge: Math.min(ge, le), le: Math.max(ge, le) },
                ]),
          ),
        );
    });

const prefixRules = (families: readonly ('ipv4' | 'ipv6')[]) =>
  fc.array(
    fc
      .tuple(prefixMatch(families), fc.constantFrom('permit' as const, 'deny' as const))
      .map(([m, action]) => ({ ...m, action })),
    { maxLength: 3 },
  );

const filter = (families: readonly ('ipv4' | 'ipv6')[]) =>
  fc.record({
    items: fc.array(
      fc
        .record(
          {
            prefix: prefixMatch(families),
            community,
            exactMatch: fc.boolean(),
            action: fc.constantFrom('accept' as const, 'reject' as const, 'next' as const),
            addCommunities: fc.array(community, { maxLength: 2 }),
            additive: fc.boolean(),
            removeCommunities: fc.array(community, { maxLength: 2 }),
          },
          { requiredKeys: ['action'] },
        )
        // Rejected routes are not modified (a cross-field rule of the intent).
        .map((item) =>
          item.action === 'reject' ? { ...item, addCommunities: [], removeCommunities: [] } : item,
        ),
      { maxLength: 3 },
    ),
    defaultAction: fc.constantFrom('accept' as const, 'reject' as const),
  });

/** Names that are valid VRF names (and not FRR's reserved ones). */
const VRF_NAMES = ['red', 'blue', 'green', 'tenant-1', 'a.b', 'X_9', 'vrf', 'view', 'r'] as const;

const session = (asn: number, profiles: readonly string[]) =>
  fc
    .record(
      {
        remoteAs,
        password,
        bfd: fc.oneof(
          fc.boolean(),
          bfdTimers,
          ...(profiles.length > 0 ? [fc.constantFrom(...profiles).map((profile) => ({ profile }))] : []),
        ),
        timers,
        allowAsIn: fc.oneof(fc.integer({ min: 1, max: 10 }), fc.constant('origin' as const)),
        localAs: fc
          .record({
            asn: fc.integer({ min: 1, max: 4_294_967_295 }).filter((a) => a !== asn),
            noPrepend: fc.boolean(),
            replaceAs: fc.boolean(),
          })
          .map((l) => ({ ...l, replaceAs: l.noPrepend && l.replaceAs })),
        ebgpMultihop: fc.integer({ min: 1, max: 255 }),
        updateSource: fc.oneof(ipv4Address, fc.constantFrom('lo', 'eth0')),
      },
      { requiredKeys: ['remoteAs'] },
    )
    // local-as only on eBGP sessions, and not the remote AS itself (cross-field rules).
    .map(({ localAs, ...s }) =>
      localAs === undefined || s.remoteAs === 'internal' || s.remoteAs === asn || s.remoteAs === localAs.asn
        ? s
        : { ...s, localAs },
    );

/** A valid routing intent: every field of the contract, in valid combinations. */
export function frrIntentArbitrary(): fc.Arbitrary<FrrIntentInput> {
  return fc
    .record({
      asn: fc.oneof(fc.integer({ min: 1, max: 65535 }), fc.integer({ min: 1, max: 4_294_967_295 })),
      routerId: ipv4Address,
      vtepIp: ipv4Address,
      mode: fc.constantFrom('netns' as const, 'vrf-ibgp' as const),
      profiles: fc.uniqueArray(fc.stringMatching(/^[a-z][a-z0-9_-]{0,10}$/), { maxLength: 2 }),
      vrfNames: fc.shuffledSubarray([...VRF_NAMES], { maxLength: 4 }),
      vnis: fc.uniqueArray(fc.integer({ min: 1, max: 70_000 }), { minLength: 12, maxLength: 12 }),
      vlans: fc.uniqueArray(fc.integer({ min: 1, max: 4094 }), { minLength: 4, maxLength: 4 }),
      guard: fc.option(fc.record({ enabled: fc.boolean(), community }, { requiredKeys: [] }), {
        nil: undefined,
      }),
      multipathRelax: fc.boolean(),
    })
    .chain((base) => {
      const { asn, profiles, vrfNames, vnis } = base;
      const needsRt = (vni: number) => asn > 0xffff && vni > 0xffff;
      const neighbor = fc
        .tuple(
          fc.oneof(
            ipv4Address.map((address) => ({ address })),
            ipv6Address.map((address) => ({ address })),
            fc.constantFrom('eth1', 'eth2', 'swp1', 'uplink.10').map((i) => ({ interface: i })),
          ),
          session(asn, profiles),
          fc.option(fc.subarray(['ipv4', 'ipv6', 'evpn'] as const, { minLength: 1 }), { nil: undefined }),
        )
        .map(([id, s, addressFamilies]) => {
          // An unnumbered session is directly connected: no ebgp-multihop (a cross-field rule).
          const { ebgpMultihop, ...rest } = s;
          const hops = 'interface' in id || ebgpMultihop === undefined ? {} : { ebgpMultihop };
          return { ...id, ...rest, ...hops, ...(addressFamilies ? { addressFamilies } : {}) };
        });
      const vrf = (name: string, i: number) =>
        fc
          .record({
            families: fc.constantFrom<('ipv4' | 'ipv6')[]>(['ipv4'], ['ipv4', 'ipv6'], ['ipv6']),
            sources: fc.subarray([...vrfNames.filter((n) => n !== name), 'hbr']),
          })
          .chain(({ families, sources }) => {
            const vni = vnis[i] ?? 1;
            const rt = fc.oneof(
              routeTarget.map((routeTarget) => ({ routeTarget })),
              routeTargets.map((r) => ({ routeTargets: r })),
            );
            const peerTarget = fc.oneof(
              ...(families.includes('ipv4')
                ? [
                    ipv4Address.map((address) => ({ address })),
                    ipv4Network(30).map((listenRange) => ({ listenRange })),
                  ]
                : []),
              ...(families.includes('ipv6')
                ? [
                    ipv6Address.map((address) => ({ address })),
                    ipv6Network(126).map((listenRange) => ({ listenRange })),
                  ]
                : []),
            );
            const networks = fc.oneof(
              ...families.map((f) => (f === 'ipv4' ? ipv4Network(31) : ipv6Network(127))),
            );
            return fc.record(
              {
                name: fc.constant(name),
                vni: fc.constant(vni),
                rt: needsRt(vni) ? rt : fc.option(rt, { nil: undefined }),
                importVrfs: fc.tuple(
                  ...sources.map((s) =>
                    fc.oneof(
                      fc.constant(s),
                      filter(families).map((f) => ({ vrf: s, filter: f })),
                    ),
                  ),
                ),
                import: fc.oneof(prefixRules(families), filter(families)),
                export: fc.oneof(prefixRules(families), filter(families)),
                aggregates: fc.array(networks, { maxLength: 3 }),
                redistribute: fc.record(
                  { connected: fc.boolean(), static: fc.boolean(), kernel: fc.boolean() },
                  { requiredKeys: [] },
                ),
                staticRoutes: fc.array(
                  fc.oneof(
                    ...families.map((f) =>
                      fc
                        .tuple(
                          f === 'ipv4' ? ipv4Network() : ipv6Network(),
                          f === 'ipv4' ? ipv4Address : ipv6Address,
                          fc.constantFrom(undefined, ...vrfNames),
                        )
                        .map(([prefix, nexthop, nextHopVrf]) => ({
                          prefix,
                          nexthop,
                          ...(nextHopVrf ? { nextHopVrf } : {}),
                        })),
                    ),
                    networks.map((prefix) => ({ prefix, blackhole: true as const })),
                  ),
                  { maxLength: 3 },
                ),
                bgpPeers: fc.uniqueArray(
                  fc
                    .tuple(
                      peerTarget,
                      session(asn, profiles),
                      fc.option(fc.integer({ min: 1, max: 100000 }), { nil: undefined }),
                      fc.option(filter(families), { nil: undefined }),
                      fc.option(filter(families), { nil: undefined }),
                    )
                    .map(([target, s, maxPrefixes, imp, exp]) => ({
                      ...target,
                      ...s,
                      ...(maxPrefixes ? { maxPrefixes } : {}),
                      ...(imp ? { import: imp } : {}),
                      ...(exp ? { export: exp } : {}),
                    })),
                  {
                    maxLength: 2,
                    // Listen ranges of a VRF must not overlap: at most one per VRF here.
                    selector: (p) => ('address' in p ? p.address : 'listen range'),
                  },
                ),
                addressFamilies: fc.constant([...families]),
              },
              { requiredKeys: ['name', 'vni', 'rt', 'importVrfs', 'addressFamilies'] },
            );
          })
          .map(({ rt, ...v }) => ({ ...v, ...(rt ?? {}) }));
      const layer2 = (i: number) =>
        fc
          .record({
            vrf: fc.option(fc.constantFrom('hbr', ...vrfNames), { nil: undefined }),
            rt: fc.option(
              fc.oneof(
                routeTarget.map((routeTarget) => ({ routeTarget })),
                routeTargets.map((r) => ({ routeTargets: r })),
              ),
              { nil: undefined },
            ),
            advertiseSviIp: fc.boolean(),
          })
          .map(({ vrf, rt, advertiseSviIp }) => {
            const vni = vnis[8 + i] ?? 1;
            const fallback = needsRt(vni) ? { routeTarget: `${asn}:1` } : {};
            return {
              vni,
              vlan: base.vlans[i] ?? 1,
              ...(vrf ? { vrf } : {}),
              ...(rt ?? fallback),
              advertiseSviIp,
            };
          });
      return fc
        .record({
          neighbors: fc.uniqueArray(neighbor, {
            maxLength: 4,
            selector: (n) => ('address' in n ? n.address : 'interface' in n ? n.interface : ''),
          }),
          bfdProfiles: fc.tuple(...profiles.map((name) => bfdTimers.map((t) => ({ name, ...t })))),
          vrfs: fc.tuple(...vrfNames.map((n, i) => vrf(n, i))),
          layer2s: fc
            .integer({ min: 0, max: 4 })
            .chain((count) => fc.tuple(...Array.from({ length: count }, (_, i) => layer2(i)))),
        })
        .map(({ neighbors, bfdProfiles, vrfs, layer2s }) => ({
          mode: base.mode,
          asn,
          routerId: base.routerId,
          vtepIp: base.vtepIp,
          ...(base.guard ? { fabricLoopGuard: base.guard } : {}),
          underlay: { neighbors, multipathRelax: base.multipathRelax },
          bfdProfiles,
          vrfs,
          layer2s,
        }));
    }) as fc.Arbitrary<FrrIntentInput>;
}

/** The same intent with every array shuffled, except those whose order is their meaning (filter items, prefix rules). */
export function shuffledIntent(intent: FrrIntentInput, random: () => number): FrrIntentInput {
  const ORDERED = new Set(['items', 'import', 'export']);
  const shuffle = (value: unknown, key: string): unknown => {
    if (Array.isArray(value)) {
      const items = value.map((v) => shuffle(v, ''));
      if (ORDERED.has(key)) return items;
      for (let i = items.length - 1; i > 0; i--) {
        const j = Math.floor(random() * (i + 1));
        [items[i], items[j]] = [items[j], items[i]];
      }
      return items;
    }
    if (value !== null && typeof value === 'object') {
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, shuffle(v, k)]));
    }
    return value;
  };
  return shuffle(intent, '') as FrrIntentInput;
}
