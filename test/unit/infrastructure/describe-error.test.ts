import { describeError } from '../../../src/infrastructure/logging/logger';

describe('describeError', () => {
  it('keeps the kind, code and message but masks credentials in a URL', () => {
    const error = Object.assign(new Error('connect failed for mysql://app:s3cret@db:3306/ac'), { code: 'ECONNREFUSED' });
    const text = describeError(error);
    expect(text).toBe('Error ECONNREFUSED: connect failed for mysql://***@db:3306/ac');
    expect(text).not.toContain('s3cret');
  });

  it('cuts a long message and copes with values that are not errors', () => {
    expect(describeError(new TypeError('x'.repeat(1000))).length).toBeLessThanOrEqual('TypeError: '.length + 300);
    expect(describeError('smtp://user:pw@mail:25 refused')).toBe('Error: smtp://***@mail:25 refused');
    expect(describeError(null)).toBe('Error: null');
  });
});
