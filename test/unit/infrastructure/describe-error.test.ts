import { describeError, serializeError } from '../../../src/infrastructure/logging/logger';

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

describe('serializeError (the err serializer of every logger)', () => {
  it('keeps a database error to its kind, code and message, its quoted values masked, never its SQL or parameters', () => {
    const error = Object.assign(new Error("Duplicate entry 'grace@example.com' for key 'users.uq_users_email_key'"), {
      name: 'QueryFailedError',
      query: 'INSERT INTO users (email) VALUES (?)',
      parameters: ['grace@example.com'],
      driverError: { code: 'ER_DUP_ENTRY', sqlMessage: "Duplicate entry 'grace@example.com'" },
    });
    const serialized = serializeError(error) as Exclude<ReturnType<typeof serializeError>, string>;
    expect(serialized).toMatchObject({ type: 'QueryFailedError', code: 'ER_DUP_ENTRY' });
    expect(serialized.message).toBe("QueryFailedError ER_DUP_ENTRY: Duplicate entry '?' for key '?'");
    expect(JSON.stringify(serialized)).not.toMatch(/grace|INSERT|parameters|sqlMessage/);
  });

  it('keeps the frames of the stack but not its first line, which repeats the raw message', () => {
    const serialized = serializeError(new Error('token=abc123 leaked')) as Exclude<ReturnType<typeof serializeError>, string>;
    expect(serialized.stack).toMatch(/^\s+at /);
    expect(serialized.stack).not.toContain('abc123');
    expect(serializeError('already described')).toBe('already described');
  });
});
