import js from '@eslint/js';
import boundaries from 'eslint-plugin-boundaries';
import jsxA11y from 'eslint-plugin-jsx-a11y';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';
import tseslint from 'typescript-eslint';

// The layers of src/, top to bottom; each may import only the layers listed for it (README,
// "Layout"). It mirrors the Go layering that architecture_test.go enforces: imports point down, so
// a shared component never reaches into a page and the API client knows nothing of the screens.
// main.tsx, the entry point, sits above them all.
const layers = [
  // The shell: store, route table, router, layout, navigation, error pages.
  { type: 'app', pattern: 'src/app', mayImport: ['app', 'feature', 'components', 'api', 'i18n'] },
  // One folder per feature, with its pages. Besides the layers below, a feature may use its own
  // files and the auth feature (the session), but no other feature.
  { type: 'feature', pattern: 'src/features/*', capture: ['name'], mayImport: ['app', 'components', 'api', 'i18n'] },
  // Shared building blocks for the screens.
  { type: 'components', pattern: 'src/components', mayImport: ['components', 'api', 'i18n'] },
  // Translations: the i18next set-up, the texts of every language and the language switcher. It
  // knows nothing of the screens, so every layer above may use it (docs/i18n.md).
  { type: 'i18n', pattern: 'src/i18n', mayImport: ['i18n'] },
  // The one RTK Query API and its helpers.
  { type: 'api', pattern: 'src/api', mayImport: ['api'] },
  // Test set-up and helpers.
  { type: 'test', pattern: 'src/test', mayImport: ['app', 'feature', 'components', 'api', 'i18n', 'test'] },
];

export default tseslint.config(
  { ignores: ['dist/', 'dist-ssr/', 'node_modules/', 'src/api/generated.ts'] },
  {
    files: ['**/*.{ts,tsx}'],
    extends: [js.configs.recommended, ...tseslint.configs.recommended, reactHooks.configs.flat.recommended],
    languageOptions: { globals: globals.browser },
  },
  {
    files: ['src/**/*.tsx'],
    ...jsxA11y.flatConfigs.recommended,
  },
  {
    files: ['src/**/*.{ts,tsx}'],
    plugins: { boundaries },
    settings: {
      'boundaries/elements': layers.map(({ mayImport: _, ...element }) => element),
      'boundaries/files': [
        { category: 'test', pattern: '**/*.test.{ts,tsx}' },
        // The typed store hooks (useAppSelector, useAppDispatch): every layer that reads or
        // changes the store uses them, and they only name the store's types.
        { category: 'store-hooks', pattern: 'src/app/hooks.ts' },
      ],
      // Relative imports name .ts and .tsx files without their extension.
      'import/resolver': { node: { extensions: ['.ts', '.tsx', '.js'] } },
    },
    rules: {
      'boundaries/dependencies': [
        'error',
        {
          default: 'disallow',
          policies: [
            ...layers.map(({ type, mayImport }) => ({
              from: { element: { type } },
              allow: { to: { element: { types: { anyOf: mayImport } } } },
            })),
            { from: { element: { type: 'components' } }, allow: { to: { file: { categories: 'store-hooks' } } } },
            // Within one feature, and from any feature to the auth feature (the session) and to the
            // content feature (the public site's sections: FAQ, team), which other pages show.
            {
              from: { element: { type: 'feature' } },
              allow: { to: { element: { type: 'feature', captured: { name: 'auth' } } } },
            },
            {
              from: { element: { type: 'feature' } },
              allow: { to: { element: { type: 'feature', captured: { name: 'content' } } } },
            },
            {
              from: { element: { type: 'feature', captured: { name: '*' } } },
              allow: { to: { element: { type: 'feature', captured: { name: '{{ from.captured.name }}' } } } },
            },
            // The home page and the dashboard show the community feature's widgets (testimonials,
            // activity, counts; the "Share your experience" card).
            {
              from: { element: { type: 'feature', captured: { name: '{home,account}' } } },
              allow: { to: { element: { type: 'feature', captured: { name: 'community' } } } },
            },
            // Tests exercise their layer from outside, with whatever helps.
            { from: { file: { categories: 'test' } }, allow: { to: { element: { type: '*' } } } },
          ],
        },
      ],
    },
  },
  {
    files: ['*.{js,cjs}', 'scripts/*.mjs', 'vite.config.ts'],
    languageOptions: { globals: globals.node },
  },
  {
    files: ['*.cjs'],
    languageOptions: { sourceType: 'commonjs' },
  },
);
