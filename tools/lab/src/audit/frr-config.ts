import type { FrrConfigLine } from './findings.js';

// FRR's running configuration as lines with their blocks, and the VRFs and VNIs each names. A line
// opens a block when the next line is indented deeper (`router bgp 65000 vrf red`, ` address-family
// l2vpn evpn`, `  vni 2100`); `exit...` lines close one. What a line names counts for the lines of
// its block too: `route-target import 65000:2100` inside `vni 2100` belongs to VNI 2100.

const HEADER = /^(Building configuration\.\.\.|Current configuration:|end)$/;
// `import vrf route-map NAME` names a route-map, not a VRF; `vrf default` is no object's.
const VRF_REF = /\bvrf (?!route-map\b)(\S+)/g;
const VNI_REF = /\bvni (\d+)\b/g;

const refs = (text: string, re: RegExp): string[] => [...text.matchAll(re)].map((m) => m[1]!);

/** Parses `show running-config` of one pathspace. */
export function parseFrrRunningConfig(pathspace: string, text: string): FrrConfigLine[] {
  const rows = text
    .split('\n')
    .map((raw) => ({ indent: raw.length - raw.trimStart().length, text: raw.trim() }))
    .filter((r) => r.text !== '' && r.text !== '!' && !HEADER.test(r.text));
  const out: FrrConfigLine[] = [];
  const stack: { indent: number; text: string }[] = [];
  rows.forEach((row, i) => {
    while (stack.length > 0 && stack[stack.length - 1]!.indent >= row.indent) stack.pop();
    if (row.text.startsWith('exit')) return; // closes the block above it
    const context = stack.map((s) => s.text);
    const named = [...context, row.text].join('\n');
    out.push({
      pathspace,
      context,
      line: row.text,
      vrfs: [...new Set(refs(named, VRF_REF).filter((v) => v !== 'default'))],
      vnis: [...new Set(refs(named, VNI_REF).map(Number))],
    });
    const next = rows[i + 1];
    if (next && next.indent > row.indent) stack.push(row);
  });
  return out;
}
