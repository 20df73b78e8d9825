// `npm run lab`: the main job. Runs inside the lab kernel (tools/ci/lab.sh boots it).
import { runClusterLab } from './cluster/scenario.js';
import { LabReport } from './report.js';

const report = new LabReport();
process.stdout.write(
  'fabrik lab: a cluster of two nodes — intent applied with kubectl, agent-host and agent-netns per node, Pods through libcni, EVPN over VXLAN\n\n',
);
await runClusterLab(report);
process.exitCode = report.finish();
