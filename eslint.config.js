// Lint rules shared by every package. Type-aware rules are left to `tsc` (npm run typecheck)
// so that linting stays fast enough to run on every `npm test`.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['**/node_modules/**', '**/dist/**', '**/.nx/**', '**/__fixtures__/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        Buffer: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        setInterval: 'readonly',
        clearInterval: 'readonly',
        URL: 'readonly',
        AbortController: 'readonly',
        AbortSignal: 'readonly',
        performance: 'readonly',
        setImmediate: 'readonly',
        queueMicrotask: 'readonly',
        structuredClone: 'readonly',
        TextEncoder: 'readonly',
        TextDecoder: 'readonly',
      },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      // Security rule of the project: processes are started only by netcore's exec module
      // (runCommand, startCommand, lockFile: argument arrays, never a shell), so that neither
      // `spawn(..., { shell: true })` nor `sh -c` can slip in anywhere else.
      'no-restricted-imports': [
        'error',
        {
          paths: ['node:child_process', 'child_process'].map((name) => ({
            name,
            message:
              "Start processes with @fabrik/netcore's runCommand / startCommand (argument arrays, no shell).",
          })),
        },
      ],
    },
  },
  {
    // The exec module itself, and test helpers (they drive processes the way a user would).
    files: ['packages/netcore/src/exec/**', 'packages/testkit/**', '**/*.test.ts'],
    rules: { 'no-restricted-imports': 'off' },
  },
);
