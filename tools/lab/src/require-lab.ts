// vitest globalSetup of the `lab` project: lab tests need vrf, 8021q and dummy, which only the
// lab kernel has. Refuse to run them anywhere else instead of letting them fail obscurely.
export default function requireLab(): void {
  if (process.env.FABRIK_LAB !== '1') {
    throw new Error('lab tests run inside the lab kernel: use `npm run test:lab` (tools/lab/README.md)');
  }
}
