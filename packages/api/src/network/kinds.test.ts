import { describe, expect, it } from 'vitest';
import { API_VERSION } from './group.js';
import { IP_POOL_RESOURCE, parseIpPool } from './ip-pool.js';
import { openApiSchemaOf } from '../crd/custom-resource-definition.js';
import { admissionErrors } from '../../test/admission.js';
import { LabelSelector } from '../kube/meta.js';
import { parseLayer2Network } from './layer2-network.js';
import { parseVrf } from './vrf.js';

const l2 = (spec: object) => ({
  apiVersion: API_VERSION,
  kind: 'Layer2Network',
  metadata: { name: 'web' },
  spec,
});

describe('network kinds', () => {
  it('parses a Layer2Network with defaults applied', () => {
    const r = parseLayer2Network(l2({ vni: 2100, vlan: 100, vrf: 'red' }));
    expect(r.ok && r.value.spec).toEqual({
      vni: 2100,
      vlan: 100,
      vrf: 'red',
      mtu: 1500,
      neighSuppression: true,
    });
  });
  it('names the field of an invalid object', () => {
    const r = parseLayer2Network(l2({ vni: 2100, vlan: 4095 }));
    expect(r.ok).toBe(false);
    expect(!r.ok && r.error.issues.map((i) => i.path)).toEqual(['spec.vlan']);
    expect(!r.ok && r.error.message).toMatch(/^invalid Layer2Network web: spec\.vlan: /);
  });
  it('refuses unknown fields by default; ignores and lists them when asked (a newer CRD version)', () => {
    const newer = {
      ...l2({ vni: 2100, vlan: 100, futureKnob: true, anycastGateways: ['10.1.0.1/24'] }),
      status: { conditions: [], futureStatus: 1 },
      futureTop: {},
    };
    const strict = parseLayer2Network(newer);
    expect(!strict.ok && strict.error.issues.map((i) => i.path).sort()).toEqual([
      'futureTop',
      'spec.futureKnob',
      'status.futureStatus',
    ]);
    const tolerant = parseLayer2Network(newer, { unknownFields: 'ignore' });
    expect(tolerant.ok && tolerant.value.spec).toMatchObject({ vni: 2100, vlan: 100, mtu: 1500 });
    expect(tolerant.ok && [...(tolerant.unknownFields ?? [])].sort()).toEqual([
      'futureTop',
      'spec.futureKnob',
      'status.futureStatus',
    ]);
    expect(newer.spec).toHaveProperty('futureKnob'); // the input is not changed
    // Known fields are still checked: an unknown field does not hide an invalid one.
    const bad = parseLayer2Network(l2({ vni: 2100, vlan: 5000, futureKnob: 1 }), { unknownFields: 'ignore' });
    expect(!bad.ok && bad.error.issues.map((i) => i.path)).toEqual(['spec.vlan']);
  });
  it('checks rules across fields of one object', () => {
    const vrf = parseVrf({
      apiVersion: API_VERSION,
      kind: 'VRF',
      metadata: { name: 'red' },
      spec: { vni: 1001, importVrfs: ['red'], import: [{ cidr: '10.0.0.0/16', le: 8 }] },
    });
    expect(!vrf.ok && vrf.error.issues.map((i) => i.path).sort()).toEqual([
      'spec.importVrfs',
      'spec.import[0].le',
    ]);
    const pool = parseIpPool({
      apiVersion: API_VERSION,
      kind: 'IPPool',
      metadata: { name: 'p' },
      spec: { ipRanges: [{ cidr: '10.2.0.0/24' }], subnetInfo: { gateway: '10.1.0.1', prefixLength: 24 } },
    });
    expect(!pool.ok && pool.error.issues.map((i) => i.path)).toEqual(['spec.ipRanges']);
  });
  it("refuses a change of an IPPool's subnetInfo on update (a CEL transition rule), not other changes", () => {
    const pool = {
      apiVersion: API_VERSION,
      kind: 'IPPool',
      metadata: { name: 'p' },
      spec: { ipRanges: [{ cidr: '10.1.0.0/25' }], subnetInfo: { gateway: '10.1.0.1', prefixLength: 24 } },
    };
    const schema = openApiSchemaOf(IP_POOL_RESOURCE);
    const grown = { ...pool, spec: { ...pool.spec, ipRanges: [{ cidr: '10.1.0.0/24' }] } };
    expect(admissionErrors(schema, grown, pool)).toEqual([]);
    const moved = { ...pool, spec: { ...pool.spec, subnetInfo: { gateway: '10.1.0.1', prefixLength: 23 } } };
    expect(admissionErrors(schema, moved, pool)).toEqual([
      { path: 'spec.subnetInfo', message: 'is immutable (addresses are allocated from it)' },
    ]);
  });
  it('validates label selectors as Kubernetes does', () => {
    const ok = (s: unknown) => LabelSelector.safeParse(s).success;
    expect(ok({})).toBe(true);
    expect(ok({ matchLabels: { 'fabrik.dev/zone': 'a', 'kubernetes.io/hostname': '' } })).toBe(true);
    expect(ok({ matchLabels: { ['a'.repeat(64)]: 'x' } })).toBe(false);
    expect(ok({ matchLabels: { zone: 'a b' } })).toBe(false);
    expect(ok({ matchExpressions: [{ key: 'zone', operator: 'NotIn', values: ['a'] }] })).toBe(true);
    expect(ok({ matchExpressions: [{ key: 'zone', operator: 'DoesNotExist' }] })).toBe(true);
    expect(ok({ matchExpressions: [{ key: 'zone', operator: 'NotIn', values: [] }] })).toBe(false);
    expect(ok({ matchExpressions: [{ key: 'zone', operator: 'Gt', values: ['1'] }] })).toBe(false);
  });
});
