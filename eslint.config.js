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
