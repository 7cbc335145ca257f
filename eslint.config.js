// ESLint (flat config) for web/, tests/ and scripts/; Prettier owns the layout
// (.prettierrc.json), so eslint-config-prettier turns off every rule about it.
import js from '@eslint/js';
import globals from 'globals';
import prettier from 'eslint-config-prettier';

export default [
  { ignores: ['build/**', 'dist/**', 'integrations/*/*/resources/player/**', 'node_modules/**', 'tests/consumer/app/node_modules/**', 'web/public/**'] },
  js.configs.recommended,
  {
    files: ['**/*.{js,mjs,cjs}'],
    languageOptions: {
      ecmaVersion: 2024,
      sourceType: 'module',
      globals: { ...globals.browser, ...globals.worker, ...globals.node },
    },
    rules: {
      // Unused arguments document a callback's shape; unused variables are mistakes.
      'no-unused-vars': ['error', { args: 'none', caughtErrors: 'none', ignoreRestSiblings: true }],
      // `for (;;)` loops that end by break are the readers' idiom.
      'no-constant-condition': ['error', { checkLoops: false }],
      // The control characters in file-name checks are the point of those patterns.
      'no-control-regex': 'off',
      eqeqeq: ['error', 'smart'],
      'prefer-const': 'error',
      'no-var': 'error',
    },
  },
  { files: ['**/*.cjs'], languageOptions: { sourceType: 'commonjs' } },
  // Small functions a reader can follow (issue #41): the app's and the CLI's code, at most 80
  // lines of code each; a longer one is split into named steps.
  {
    files: ['web/src/**/*.js', 'web/cli/**/*.js'],
    rules: { 'max-lines-per-function': ['error', { max: 80, skipBlankLines: true, skipComments: true }] },
  },
  // The MediaWiki extension's ResourceLoader scripts: ES5 in a classic script (MediaWiki 1.39's
  // validator and minifier read no later syntax), with MediaWiki's globals.
  {
    files: ['integrations/mediawiki/*/resources/*.js'],
    languageOptions: { ecmaVersion: 5, sourceType: 'script', globals: { ...globals.browser, mw: 'readonly' } },
    rules: { 'no-var': 'off' },
  },
  prettier,
];
