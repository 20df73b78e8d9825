import { describe, expect, it } from 'vitest';
import { parseFrrRunningConfig } from './frr-config.js';

// `show running-config` of FRR 8.4 in the lab after agent-netns applied VRF red (L3 VNI 1001) and
// Layer2Networks 2100 (in red) and 2200.
const RUNNING = `Building configuration...

Current configuration:
!
frr version 8.4.4
frr defaults datacenter
hostname fabrik-lab
!
vrf red
 vni 1001
exit-vrf
!
router bgp 65000
 bgp router-id 192.0.2.1
 neighbor 192.0.2.2 remote-as internal
 !
 address-family l2vpn evpn
  neighbor 192.0.2.2 activate
  advertise-all-vni
  vni 2100
   route-target import 65000:2100
   route-target export 65000:2100
  exit-vni
  vni 2200
   route-target import 65000:2200
  exit-vni
 exit-address-family
exit
!
router bgp 65000 vrf red
 !
 address-family ipv4 unicast
  redistribute connected
  import vrf blue
  import vrf route-map leak-in
 exit-address-family
exit
!
end
`;

describe('parseFrrRunningConfig', () => {
  const lines = parseFrrRunningConfig('lab-a-hbr', RUNNING);
  const find = (line: string) => lines.filter((l) => l.line === line);

  it('drops the header, separators and exit lines', () => {
    expect(lines.map((l) => l.line)).not.toContain('!');
    expect(lines.some((l) => l.line.startsWith('exit'))).toBe(false);
    expect(lines.some((l) => /Building|Current configuration|^end$/.test(l.line))).toBe(false);
    expect(lines[0]).toMatchObject({ line: 'frr version 8.4.4', context: [], vrfs: [], vnis: [] });
  });

  it('gives each line its blocks and what they name', () => {
    expect(find('vni 1001')[0]).toMatchObject({ context: ['vrf red'], vrfs: ['red'], vnis: [1001] });
    expect(find('route-target import 65000:2200')[0]).toMatchObject({
      context: ['router bgp 65000', 'address-family l2vpn evpn', 'vni 2200'],
      vnis: [2200],
      vrfs: [],
    });
    expect(find('redistribute connected')[0]).toMatchObject({
      context: ['router bgp 65000 vrf red', 'address-family ipv4 unicast'],
      vrfs: ['red'],
    });
  });

  it('a line after a closed block is back at the outer level', () => {
    expect(find('advertise-all-vni')[0]).toMatchObject({ vnis: [], vrfs: [] });
    const vni2200 = find('vni 2200')[0];
    expect(vni2200?.context).toEqual(['router bgp 65000', 'address-family l2vpn evpn']);
    expect(vni2200?.vnis).toEqual([2200]);
  });

  it('an imported VRF is named; a route-map of import vrf is not a VRF', () => {
    expect(find('import vrf blue')[0]?.vrfs).toEqual(['red', 'blue']);
    expect(find('import vrf route-map leak-in')[0]?.vrfs).toEqual(['red']);
  });
});
