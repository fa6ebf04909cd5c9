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
  // A worker keeps what each ES-module test file loaded (Jest's vm contexts): after ~135 files of the
  // whole run each worker held a 2.5 GB heap (3.2 GB RSS), and tearing that down took longer than the
  // 500 ms Jest waits at the end, so it printed "A worker process has failed to exit gracefully" with
  // no handle left open (both workers held only their IPC pipes, exit event 1 ms after the end
  // message). A worker over this limit after a file is replaced by a fresh one.
  workerIdleMemoryLimit: '1GB',
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
