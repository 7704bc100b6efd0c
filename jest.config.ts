import type { Config } from 'jest';

const config: Config = {
  testEnvironment: 'node',
  roots: ['<rootDir>/__tests__'],
  testMatch: ['**/*.test.ts'],
  reporters: ['default', '<rootDir>/scripts/jest-summary-reporter.cjs'],
  transform: {
    '^.+\\.ts$': 'ts-jest',
  },
};

export default config;
