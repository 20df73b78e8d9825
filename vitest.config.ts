import { defineConfig } from 'vitest/config';

// Three kinds of tests, told apart by file name:
//   *.test.ts       unit: pure logic, no privileges, no processes (planners, renderers, schemas)
//   *.host.test.ts  host integration: the host kernel in throwaway netns, real OVS and FRR (root)
//   *.lab.test.ts   lab: need the full kernel (vrf, 8021q, dummy); run inside User-Mode Linux by
//                   `npm run test:lab`, all files in one vitest process (see tools/lab/README.md)
// The project host-fast-path runs fabrik-ovs's host tests a second time, through agent-host.
// Workspace packages resolve to their TypeScript sources (package.json `exports` condition).
const resolve = { conditions: ['@fabrik/source', 'module', 'node', 'development|production'] };
const ssr = { resolve: { conditions: resolve.conditions, externalConditions: ['@fabrik/source'] } };
const roots = ['packages/*/src', 'apps/*/src', 'tools/*/src', 'e2e/src'];

export default defineConfig({
  resolve,
  ssr,
  test: {
    projects: [
      {
        resolve,
        ssr,
        test: {
          name: 'unit',
          include: roots.map((r) => `${r}/**/*.test.ts`),
          // Pure, but some files admit thousands of objects or compile large schemas: seconds on
          // a loaded 2-core machine, where vitest's 5 s default turns load into failures.
          testTimeout: 30_000,
          exclude: ['**/*.host.test.ts', '**/*.lab.test.ts', '**/node_modules/**'],
          restoreMocks: true,
        },
      },
      {
        resolve,
        ssr,
        test: {
          name: 'host',
          sequence: { groupOrder: 1 },
          include: roots.map((r) => `${r}/**/*.host.test.ts`),
          testTimeout: 60_000,
          hookTimeout: 60_000,
          fileParallelism: true,
          maxWorkers: 2,
        },
      },
      {
        // fabrik-ovs's host tests once more, with every verb handed to agent-host's CNI socket (the
        // fast path): both paths must give the same results and errors (apps/cni-ovs/test/harness.ts).
        resolve,
        ssr,
        test: {
          name: 'host-fast-path',
          sequence: { groupOrder: 1 },
          include: ['apps/cni-ovs/src/*.host.test.ts'],
          exclude: ['apps/cni-ovs/src/fast-path.host.test.ts'],
          env: { FABRIK_CNI_TEST_PATH: 'agent-host' },
          testTimeout: 60_000,
          hookTimeout: 60_000,
          fileParallelism: true,
          maxWorkers: 2,
        },
      },
      {
        resolve,
        ssr,
        test: {
          name: 'lab',
          sequence: { groupOrder: 2 },
          include: roots.map((r) => `${r}/**/*.lab.test.ts`),
          globalSetup: ['tools/lab/src/require-lab.ts'],
          testTimeout: 120_000,
          hookTimeout: 120_000,
          // Every syscall is expensive inside UML: one worker, files run one after another.
          fileParallelism: false,
          maxWorkers: 1,
        },
      },
    ],
  },
});
