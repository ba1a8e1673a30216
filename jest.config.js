/** @type {import('jest').Config} */
const common = {
  preset: 'ts-jest',
  testEnvironment: 'node',
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json' }] },
};

// The HTTP suites, run again on MySQL 8 and on SQLite (the embedded default) beside the integration project's MariaDB.
const HTTP_SUITES = ['users', 'invitations', 'sign-in', 'permissions', 'authentication', 'user-administration', 'roles', 'account', 'refresh', 'password-reset', 'oauth-token', 'discovery', 'service-accounts', 'oauth-introspection', 'service-tokens', 'users-cursor', 'users-search-limit', 'password-reset-backlog', 'mfa', 'mfa-proof', 'mfa-failure-limit', 'mfa-races', 'passkeys', 'console-session', 'invitation-expiry', 'audit-events'].map(
  (name) => `<rootDir>/test/e2e/${name}.e2e.test.ts`,
);

module.exports = {
  // Integration tests talk to real services; a generous ceiling, not a speed assertion.
  testTimeout: 60000,
  // The suites that run for minutes start first, so none is the run's tail (test/support/slow-suites-first.sequencer.js).
  testSequencer: '<rootDir>/test/support/slow-suites-first.sequencer.js',
  projects: [
    { ...common, displayName: 'unit', testMatch: ['<rootDir>/test/unit/**/*.test.ts'] },
    {
      ...common,
      displayName: 'integration',
      testMatch: ['<rootDir>/test/integration/**/*.test.ts', '<rootDir>/test/e2e/**/*.test.ts', '<rootDir>/test/contract/**/*.test.ts'],
      globalSetup: '<rootDir>/test/support/global-setup.ts',
      globalTeardown: '<rootDir>/test/support/global-teardown.ts',
    },
    {
      // The HTTP suites again, every test database on MySQL 8 (the setup above starts it once for both).
      ...common,
      displayName: 'e2e-mysql',
      testMatch: HTTP_SUITES,
      setupFiles: ['<rootDir>/test/support/on-mysql.setup.ts'],
      globalSetup: '<rootDir>/test/support/global-setup.ts',
      globalTeardown: '<rootDir>/test/support/global-teardown.ts',
    },
    {
      // The same suites on SQLite files, as `make run` keeps its data: one connection that every
      // statement shares, where a read waiting for the transaction it runs in would hang the request.
      ...common,
      displayName: 'e2e-sqlite',
      testMatch: HTTP_SUITES,
      setupFiles: ['<rootDir>/test/support/on-sqlite.setup.ts'],
      globalSetup: '<rootDir>/test/support/global-setup.ts',
      globalTeardown: '<rootDir>/test/support/global-teardown.ts',
    },
  ],
};
