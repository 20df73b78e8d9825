// `npm run lab`: the main job. Runs inside the lab kernel (tools/ci/lab.sh boots it).
import { LabReport } from './report.js';
import { runTwoNodeEvpn } from './two-node-evpn/scenario.js';

const report = new LabReport();
process.stdout.write('fabrik lab: two nodes, EVPN L2 VNIs over VXLAN, Pods on VLAN networks through OVS\n\n');
await runTwoNodeEvpn(report);
process.exitCode = report.finish();
