// `npm run lab`: the main job. Runs inside the lab kernel (tools/ci/lab.sh boots it).
import { labCpuByGroup } from './cluster/cpu.js';
import { runClusterLab } from './cluster/scenario.js';
import { LabReport } from './report.js';

// Each step and check also says where the lab kernel's one thread spent its time.
const report = new LabReport(undefined, labCpuByGroup);
await report.startCpu();
process.stdout.write(
  'fabrik lab: a cluster of two nodes — intent applied with kubectl, agent-host and agent-netns per node, Pods through libcni and Multus, EVPN over VXLAN\n' +
    `lab kernel: UML ${process.env['FABRIK_LAB_KERNEL'] ?? 'unknown'}\n\n`,
);
await runClusterLab(report);
process.exitCode = report.finish();
