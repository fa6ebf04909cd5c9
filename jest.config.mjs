// One Jest configuration for the whole repository: unit tests next to the code in libs/ and apps/,
// end-to-end tests in test/. TypeScript is compiled by SWC (fast, emits ESM and Nest's decorator
// metadata); Jest runs the ES modules natively (node --experimental-vm-modules, see package.json).
// Workspace packages resolve to their sources, so tests never need a build first.

/** @type {import('@swc/core').Options} */
const swc = {
  jsc: {
    parser: { syntax: 'typescript', decorators: true },
    transform: { legacyDecorator: true, decoratorMetadata: true, useDefineForClassFields: true },
    target: 'es2023',
    keepClassNames: true,
  },
  module: { type: 'es6' },
  sourceMaps: 'inline',
};

/** @type {import('jest').Config} */
const common = {
  extensionsToTreatAsEsm: ['.ts'],
  transform: { '^.+\\.ts$': ['@swc/jest', swc] },
  testEnvironment: 'node',
  moduleNameMapper: {
    // the same mapping as tsconfig.json's paths: @tosdk/x to libs/x/src/index.ts and an entry point
    // @tosdk/x/y to libs/x/src/y/index.ts (the published exports map points at dist/ only)
    '^@tosdk/([^/]+)$': '<rootDir>/libs/$1/src/index.ts',
    '^@tosdk/([^/]+)/([^/]+)$': '<rootDir>/libs/$1/src/$2/index.ts',
    '^create-tosdk$': '<rootDir>/libs/create-tosdk/src/index.ts',
    // NodeNext requires '.js' on relative imports; map them back to the TypeScript sources.
    '^(\\.{1,2}/.*)\\.js$': '$1',
  },
  modulePathIgnorePatterns: ['<rootDir>/.*/dist/'],
  testPathIgnorePatterns: ['/node_modules/', '/dist/'],
};

/** @type {import('jest').Config} */
export default {
  testTimeout: 30_000,
  maxWorkers: 2,
  projects: [
    {
      ...common,
      displayName: 'unit',
      testMatch: ['<rootDir>/libs/**/*.spec.ts', '<rootDir>/apps/**/*.spec.ts'],
    },
    {
      ...common,
      displayName: 'e2e',
      testMatch: ['<rootDir>/test/**/*.e2e-spec.ts'],
    },
  ],
};
