// Lint rules, including the import boundaries between runtimes:
// main/core and common never import electron; common and renderer never import node:*.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';

const noElectron = { name: 'electron', message: 'main/core and common stay free of Electron.' };
const nodePatterns = {
  group: ['node:*'],
  message: 'common and renderer run in the browser too: no Node built-ins.',
};

/**
 * The layering of main/core (docs/ARCHITECTURE.md, Layout): for each folder, the core folders it
 * may not import. A rule per folder repeats the Electron ban, because a later `no-restricted-imports`
 * replaces an earlier one for the same files.
 */
const coreFolders = ['aep', 'store', 'relay', 'server', 'hooks', 'steering', 'api', 'installer', 'agents'];
const coreLayers = {
  aep: [...coreFolders.filter((f) => f !== 'aep'), 'daemon', 'daemon-context', 'features'],
  store: ['relay', 'server', 'hooks', 'steering', 'api', 'installer', 'agents', 'daemon', 'daemon-context', 'features'],
  relay: ['hooks', 'steering', 'api', 'installer', 'agents', 'daemon', 'daemon-context', 'features'],
  server: ['hooks', 'steering', 'api', 'installer', 'agents', 'daemon', 'daemon-context', 'features'],
  installer: ['relay', 'hooks', 'steering', 'agents'],
};
const layerRule = (folder, banned) => ({
  files: [`main/core/${folder}/**/*.ts`],
  rules: {
    'no-restricted-imports': [
      'error',
      {
        paths: [noElectron],
        patterns: [
          { group: ['electron/*'], message: noElectron.message },
          {
            regex: `^(\\.\\./)+(${banned.join('|')})(/|$)`,
            message: `main/core/${folder} may not import ${banned.join(', ')} (layering: docs/ARCHITECTURE.md, Layout).`,
          },
        ],
      },
    ],
  },
});

export default tseslint.config(
  { ignores: ['out/**', 'dist/**', 'release/**', 'node_modules/**', '.vendor-cache/**', '.cache/**', 'test-results/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node, ...globals.browser } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'error',
    },
  },
  {
    files: ['main/core/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { paths: [noElectron], patterns: [{ group: ['electron/*'], message: noElectron.message }] }] },
  },
  ...Object.entries(coreLayers).map(([folder, banned]) => layerRule(folder, banned)),
  {
    // Known layering exceptions (installer → hooks vendor table), open
    // with their owners: only the Electron ban applies here until the imports move.
    files: ['main/core/installer/shim-tables.ts'],
    rules: { 'no-restricted-imports': ['error', { paths: [noElectron], patterns: [{ group: ['electron/*'], message: noElectron.message }] }] },
  },
  {
    files: ['common/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { paths: [noElectron, 'fs', 'path', 'os', 'http', 'crypto'], patterns: [nodePatterns] }],
    },
  },
  {
    files: ['renderer/**/*.{ts,tsx}'],
    rules: {
      'no-restricted-imports': ['error', { paths: [noElectron, 'fs', 'path', 'os', 'http', 'crypto'], patterns: [nodePatterns] }],
    },
  },
);
