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
 * The layering of main/core (docs/ARCHITECTURE.md, Layout): for each folder, the core paths it may
 * not import. `agents/` is one module with a shared layer (`vendors`: the vendor tables, `steering`:
 * the steering engine, permission loop, kill switch, acks and durable log) and two transports that
 * never import each other (`observed`: hook-fed; `launched`: ACP and the Codex app-server); only
 * the module's own root files (its features) compose them and the /api handlers.
 * A rule per folder and depth repeats the Electron ban, because a later `no-restricted-imports`
 * replaces an earlier one for the same files.
 */
const top = ['aep', 'store', 'relay', 'server', 'sessions', 'agents', 'api', 'installer', 'daemon', 'daemon-context', 'features', 'gc-tuning'];
const above = (...allowed) => top.filter((f) => !allowed.includes(f));
const coreLayers = {
  aep: above('aep'),
  store: above('aep', 'store'),
  relay: above('aep', 'store', 'relay', 'server'),
  server: above('aep', 'store', 'relay', 'server'),
  installer: ['relay', 'server', 'api', 'agents/observed', 'agents/steering', 'agents/launched', 'daemon', 'daemon-context', 'features'],
  'agents/vendors': [...above('aep', 'agents'), 'agents/steering', 'agents/observed', 'agents/launched'],
  'agents/steering': [...above('aep', 'store', 'relay', 'agents'), 'agents/observed', 'agents/launched'],
  'agents/observed': [...above('aep', 'store', 'relay', 'server', 'sessions', 'agents'), 'agents/launched'],
  'agents/launched': [...above('aep', 'store', 'relay', 'sessions', 'agents', 'installer'), 'agents/observed'],
  // The session registry: below both transports, which adopt its source contract; it names the vendor tables' types only.
  sessions: [...above('aep', 'store', 'sessions', 'agents'), 'agents/steering', 'agents/observed', 'agents/launched'],
};
const escape = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** The specifiers (as regex alternatives) by which a file in `dir` (core-relative) reaches core path `banned`. */
function reaches(dir, banned) {
  const parts = dir.split('/');
  const out = [];
  for (let up = 0; up <= parts.length; up += 1) {
    const base = parts.slice(0, parts.length - up);
    const target = banned.split('/');
    if (base.some((p, i) => target[i] !== p) || target.length <= base.length) continue;
    const rest = target.slice(base.length).join('/');
    out.push(`${up === 0 ? '\\./' : `(\\.\\./){${up}}`}${escape(rest)}`);
  }
  return out;
}
const MAX_DEPTH = 4;
const layerRules = Object.entries(coreLayers).flatMap(([folder, banned]) =>
  Array.from({ length: MAX_DEPTH }, (_, depth) => {
    const dir = [folder, ...Array.from({ length: depth }, (_, i) => `d${i}`)].join('/');
    const alternatives = banned.flatMap((b) => reaches(dir, b));
    return {
      files: [`main/core/${folder}/${'*/'.repeat(depth)}*.ts`],
      rules: {
        'no-restricted-imports': [
          'error',
          {
            paths: [noElectron],
            patterns: [
              { group: ['electron/*'], message: noElectron.message },
              {
                regex: `^(${alternatives.join('|')})(/|\\.ts$|$)`,
                message: `main/core/${folder} may not import ${banned.join(', ')} (layering: docs/ARCHITECTURE.md, Layout).`,
              },
            ],
          },
        ],
      },
    };
  }),
);

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
  ...layerRules,
  {
    // The daemon's connection keeps a deferred transaction open (store/deferred-commit.ts):
    // `db.inTransaction` reports it too, so "inside a caller's transaction?" has one answer.
    files: ['main/core/**/*.ts'],
    ignores: ['main/core/store/deferred-commit.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "MemberExpression[property.name='inTransaction']",
          message: 'Use inCallerTransaction(db) from store/deferred-commit.ts: db.inTransaction also reports the deferred commit.',
        },
      ],
    },
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
