// Behaviours of src/contract that no test pinned until its mutation run found them
// (docs/mutation.md): each test below fails with the mutant its comment names.
import { AxiosError } from 'axios';
import { CONTEXT_KEY } from '../../src/contract/call-context';
import { isRetryStop } from '../../src/contract/stop';

describe('isRetryStop', () => {
  it('answers false for an axios error without a config, rather than throwing', () => {
    expect(isRetryStop(new AxiosError('no config'))).toBe(false);
  });
});

describe('CONTEXT_KEY', () => {
  it("is the registry's symbol by its published name, so two copies of the package share it", () => {
    expect(CONTEXT_KEY).toBe(Symbol.for('axios-safe-retry.context'));
  });
});
