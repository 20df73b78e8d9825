import { describe, expect, it } from 'vitest';
import { FrrNameRegistry } from './names.js';

describe('FrrNameRegistry', () => {
  const red = { path: 'vrfs[0].import', what: 'the import filter of VRF red' };
  const blue = { path: 'vrfs[1].importVrfs[0]', what: "the filter of VRF blue's leak from x" };

  it('lets one owner claim a name as often as it builds the object', () => {
    const names = new FrrNameRegistry();
    names.claim('route-map', 'fabrik-red-import', red);
    names.claim('route-map', 'fabrik-red-import', red);
    expect(names.conflicts()).toEqual([]);
  });

  it('keeps the namespaces apart: a route-map and a prefix-list may share a name', () => {
    const names = new FrrNameRegistry();
    names.claim('route-map', 'fabrik-red-import', red);
    names.claim('prefix-list', 'fabrik-red-import', blue);
    expect(names.conflicts()).toEqual([]);
  });

  it('refuses a name two owners render, naming both, whatever the order of the claims', () => {
    for (const order of [
      [red, blue],
      [blue, red],
    ]) {
      const names = new FrrNameRegistry();
      for (const owner of order) names.claim('route-map', 'fabrik-a-b', owner);
      expect(names.conflicts()).toEqual([
        {
          path: 'vrfs[1].importVrfs[0]',
          message:
            "the filter of VRF blue's leak from x renders route-map fabrik-a-b, as the import filter of VRF red (vrfs[0].import) does: FRR would merge the two into one object; rename one of the VRFs",
        },
      ]);
    }
  });
});
