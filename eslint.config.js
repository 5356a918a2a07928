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
 * The layering of main/core (docs/ARCHITECTURE.md, Layout): for each folder (or file pattern), the
 * core paths it may not import. Below everything: `aep`, then `store` (all SQL), then the `relay`
 * and `server`. The steering core (`steering`) and the session registry (`sessions`) sit above
 * them; `hooks` (the hook path) and `launched` (ACP and the Codex app-server) are the two
 * transports and never import each other. `vendors/` holds everything about one vendor: its pure
 * hook mapping (`vendors/*.ts`, `vendors/<v>/hooks.ts`: `aep` only), its installer
 * (`vendors/<v>/install.ts`: the installer's machinery), and its hub, server or app-server client,
 * each allowed what that part needs. /api handlers live beside the feature that registers them.
 * A rule per folder and depth repeats the Electron ban, because a later `no-restricted-imports`
 * replaces an earlier one for the same files.
 */
const top = ['aep', 'store', 'relay', 'server', 'sessions', 'steering', 'transcripts', 'vendors', 'hooks', 'launched', 'api', 'installer', 'daemon', 'daemon-context', 'features'];
const above = (...allowed) => top.filter((f) => !allowed.includes(f));
const features = ['daemon', 'features'];
/** [folder (core-relative, `*` for one segment), file pattern inside it, banned core paths]; later entries win. */
const coreLayers = [
  ['aep', '**/*.ts', above('aep')],
  ['store', '**/*.ts', above('aep', 'store')],
  ['relay', '**/*.ts', above('aep', 'store', 'relay', 'server')],
  ['server', '**/*.ts', above('aep', 'store', 'relay', 'server')],
  ['api', '**/*.ts', ['sessions', 'steering', 'hooks', 'launched', ...features]],
  ['sessions', '**/*.ts', ['server', 'steering', 'transcripts', 'hooks', 'launched', 'installer', 'api', ...features]],
  ['steering', '**/*.ts', ['server', 'hooks', 'launched', 'installer', ...features]],
  // The transcript tailer reads what a vendor's own files say about a session (formats in vendors/<v>/transcript.ts).
  ['transcripts', '**/*.ts', ['server', 'sessions', 'hooks', 'launched', 'installer', 'api', ...features]],
  ['hooks', '**/*.ts', ['launched', 'installer', ...features]],
  ['launched', '**/*.ts', ['hooks', ...features]],
  ['installer', '**/*.ts', ['relay', 'server', 'sessions', 'steering', 'hooks', 'launched', ...features]],
  // vendors/: every part of a vendor is allowed what that part needs, never a transport's feature.
  ['vendors', '**/*.ts', ['server', 'sessions', 'hooks', 'launched', 'installer', ...features]],
  ['vendors', '*.ts', above('aep', 'vendors')],
  ['vendors/*', 'hooks.ts', above('aep', 'vendors')],
  ['vendors/*', 'transcript.ts', above('aep', 'vendors', 'transcripts')],
  ['vendors', 'installers.ts', ['store', 'relay', 'server', 'sessions', 'steering', 'hooks', 'launched', 'api', ...features]],
  ['vendors/*', 'install.ts', ['store', 'relay', 'server', 'sessions', 'steering', 'hooks', 'launched', 'api', ...features]],
  ['vendors', 'vendors-api.ts', ['store', 'relay', 'server', 'sessions', 'steering', 'hooks', 'launched', 'installer', ...features]],
  ['vendors/codex', 'app-server-*.ts', ['server', 'sessions', 'steering', 'hooks', 'installer', 'api', ...features]],
];
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
const ruleFor = (folder, dir, files, banned) => ({
  files,
  rules: {
    'no-restricted-imports': [
      'error',
      {
        paths: [noElectron],
        patterns: [
          { group: ['electron/*'], message: noElectron.message },
          {
            regex: `^(${banned.flatMap((b) => reaches(dir, b)).join('|')})(/|\\.ts$|$)`,
            message: `main/core/${folder} may not import ${banned.join(', ')} (layering: docs/ARCHITECTURE.md, Layout).`,
          },
        ],
      },
    ],
  },
});
const MAX_DEPTH = 4;
const layerRules = coreLayers.flatMap(([folder, pattern, banned]) =>
  pattern === '**/*.ts'
    ? // One rule per depth: a relative specifier means another folder at each depth.
      Array.from({ length: MAX_DEPTH }, (_, depth) => {
        const dir = [folder, ...Array.from({ length: depth }, (_, i) => `d${i}`)].join('/');
        return ruleFor(folder, dir, [`main/core/${folder}/${'*/'.repeat(depth)}*.ts`], banned);
      })
    : [ruleFor(`${folder}/${pattern}`, folder, [`main/core/${folder}/${pattern}`], banned)],
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
