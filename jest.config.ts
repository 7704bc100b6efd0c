import type { Config } from 'jest';

const config: Config = {
  testEnvironment: 'node',
  roots: ['<rootDir>/__tests__'],
  testMatch: ['**/*.test.ts'],
  // Jest's default reporter and summary, then the failed tests by name and the count (last).
  reporters: ['<rootDir>/scripts/jest-summary-reporter.cjs'],
  transform: {
    '^.+\\.ts$': 'ts-jest',
  },
};

export default config;
