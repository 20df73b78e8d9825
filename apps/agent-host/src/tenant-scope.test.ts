import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { attachmentRefusal, type AttachmentScope, type ScopedNetwork } from './tenant-scope.js';

const NAME = 'kubernetes.io/metadata.name';
const onlyTeamA = { matchLabels: { team: 'a' } };
const byName = { matchExpressions: [{ key: NAME, operator: 'In' as const, values: ['shop'] }] };

const scope = (over: Partial<AttachmentScope>): AttachmentScope => ({
  networkConfig: 'blue-nad',
  namespace: 'shop',
  namespaceLabels: { [NAME]: 'shop', team: 'b' },
  vlan: 100,
  trunks: [],
  pools: [],
  ...over,
});
const blue: ScopedNetwork = { name: 'blue', vlan: 100, namespaceSelector: onlyTeamA };

describe('attachmentRefusal', () => {
  it('admits every namespace where no selector is set (as before)', () => {
    expect(attachmentRefusal(scope({}), [{ name: 'blue', vlan: 100 }])).toBeUndefined();
    expect(
      attachmentRefusal(scope({ namespace: undefined, namespaceLabels: undefined }), []),
    ).toBeUndefined();
  });

  it("refuses a namespace the VLAN's Layer2Network does not select, naming network and namespace", () => {
    expect(attachmentRefusal(scope({}), [blue])).toEqual({
      message:
        'network config blue-nad: Layer2Network blue (VLAN 100) does not allow Pods of namespace shop (spec.namespaceSelector)',
      retry: false,
    });
    expect(
      attachmentRefusal(scope({ namespaceLabels: { [NAME]: 'shop', team: 'a' } }), [blue]),
    ).toBeUndefined();
  });

  it('picks namespaces by name through kubernetes.io/metadata.name', () => {
    const named: ScopedNetwork = { name: 'blue', vlan: 100, namespaceSelector: byName };
    expect(attachmentRefusal(scope({}), [named])).toBeUndefined();
    expect(
      attachmentRefusal(scope({ namespace: 'other', namespaceLabels: { [NAME]: 'other' } }), [named])
        ?.message,
    ).toContain('does not allow Pods of namespace other');
  });

  it('refuses a pool that does not select the namespace, naming the pool', () => {
    const refusal = attachmentRefusal(
      scope({ vlan: 0, pools: [{ name: 'p4' }, { name: 'p6', namespaceSelector: onlyTeamA }] }),
      [],
    );
    expect(refusal?.message).toBe(
      'network config blue-nad: IPPool p6 does not allow Pods of namespace shop (spec.namespaceSelector)',
    );
  });

  it('asks to retry while the Namespace is not known, and refuses without K8S_POD_NAMESPACE', () => {
    expect(attachmentRefusal(scope({ namespaceLabels: undefined }), [blue])?.retry).toBe(true);
    expect(attachmentRefusal(scope({ namespace: undefined, namespaceLabels: undefined }), [blue])).toEqual({
      message:
        'network config blue-nad: Layer2Network blue allows only selected namespaces (spec.namespaceSelector) and the runtime gave no K8S_POD_NAMESPACE',
      retry: false,
    });
  });

  it('carries on a trunk only VLANs of Layer2Networks that allow trunks', () => {
    const open: ScopedNetwork = { name: 'blue', vlan: 100, allowTrunks: true };
    expect(attachmentRefusal(scope({ vlan: 0, trunks: [100] }), [open])).toBeUndefined();
    expect(attachmentRefusal(scope({ vlan: 0, trunks: [100] }), [{ name: 'blue', vlan: 100 }])?.message).toBe(
      'network config blue-nad: Layer2Network blue (VLAN 100) does not allow trunks (spec.allowTrunks)',
    );
    expect(attachmentRefusal(scope({ vlan: 0, trunks: [100, 101] }), [open])?.message).toBe(
      "network config blue-nad: trunk VLAN 101 is no Layer2Network's: a trunk carries only networks that allow trunks",
    );
    expect(
      attachmentRefusal(scope({ vlan: 0, trunks: [100] }), [{ ...open, namespaceSelector: onlyTeamA }])
        ?.message,
    ).toContain('Layer2Network blue (VLAN 100) does not allow Pods of namespace shop');
  });

  it('leaves an access VLAN that is no Layer2Network open, as before', () => {
    expect(attachmentRefusal(scope({ vlan: 300 }), [blue])).toBeUndefined();
  });

  it('admits exactly when every selected network and pool matches the namespace (property)', () => {
    const labels = fc.dictionary(fc.constantFrom('team', 'env'), fc.constantFrom('a', 'b'));
    const selector = fc.option(
      fc.record({ matchLabels: fc.dictionary(fc.constantFrom('team', 'env'), fc.constantFrom('a', 'b')) }),
      { nil: undefined },
    );
    fc.assert(
      fc.property(labels, selector, selector, (ns, netSel, poolSel) => {
        const matches = (s: typeof netSel) =>
          s === undefined || Object.entries(s.matchLabels).every(([k, v]) => ns[k] === v);
        const refusal = attachmentRefusal(
          scope({
            namespaceLabels: ns,
            pools: [{ name: 'p', ...(poolSel ? { namespaceSelector: poolSel } : {}) }],
          }),
          [{ name: 'blue', vlan: 100, ...(netSel ? { namespaceSelector: netSel } : {}) }],
        );
        expect(refusal === undefined).toBe(matches(netSel) && matches(poolSel));
      }),
    );
  });
});
