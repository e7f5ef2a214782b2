import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/', 'dist/', '.data/', 'bench/results/', 'infra/.cache/', '.cache/', 'clients/python/.venv/', 'bin/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-require-imports': 'off',
      'no-constant-condition': ['error', { checkLoops: false }],
      // Our rethrows in catch blocks report a different condition (a lock held by another process), not a wrapped cause.
      'preserve-caught-error': 'off',
    },
  },
  { files: ['test/**/*.ts'], rules: { '@typescript-eslint/no-unused-expressions': 'off' } },
  // Tool configurations in CommonJS (.dependency-cruiser.cjs).
  { files: ['**/*.cjs'], languageOptions: { sourceType: 'commonjs' } },
);
