'use strict';

// One ESLint config (flat, ESLint 9) for the project's JavaScript:
// lib/, bench/, test/, examples/ and scripts/. CommonJS for .js, ES modules
// for .mjs, node's globals. `npm run lint:js`.

const js = require('@eslint/js');
const globals = require('globals');

// A promise-returning assertion whose promise is dropped passes on anything
// (STYLE.md); without type information this is the floating-promise case we
// can name.
const FLOATING_ASSERTIONS = [
  {
    selector: "ExpressionStatement > CallExpression[callee.object.name='assert']"
      + "[callee.property.name=/^(rejects|doesNotReject)$/]",
    message: 'Await (or return) assert.rejects/doesNotReject: a dropped promise asserts nothing.',
  },
  {
    selector: "ExpressionStatement > CallExpression[callee.object.name='t'][callee.property.name='test']",
    message: 'Await (or return) t.test(): a subtest that outlives its parent is cancelled.',
  },
];

// Not enabled: no-promise-executor-return (its only findings here were the
// `new Promise((r) => setTimeout(r, ms))` sleep idiom) and
// no-unmodified-loop-condition (it cannot see a flag cleared by an async
// function, the tests' load-loop pattern).
module.exports = [
  {
    ignores: ['node_modules/', 'build/', 'prebuilds/', '.tmp/', 'src/', 'test/native/'],
  },
  js.configs.recommended,
  {
    files: ['**/*.js', '**/*.cjs'],
    languageOptions: {
      ecmaVersion: 2023,
      sourceType: 'commonjs',
      globals: { ...globals.node },
    },
  },
  {
    files: ['**/*.mjs'],
    languageOptions: {
      ecmaVersion: 2023,
      sourceType: 'module',
      globals: { ...globals.node },
    },
  },
  {
    rules: {
      'no-unused-vars': ['error', { args: 'after-used', caughtErrors: 'all', ignoreRestSiblings: true }],
      eqeqeq: ['error', 'always', { null: 'ignore' }],
      'prefer-const': 'error',
      'no-var': 'error',
      'no-self-compare': 'error',
      'no-template-curly-in-string': 'error',
      'no-unreachable-loop': 'error',
      'array-callback-return': 'error',
      'no-constructor-return': 'error',
      'no-new-native-nonconstructor': 'error',
      'no-restricted-syntax': ['error', ...FLOATING_ASSERTIONS],
    },
  },
];
