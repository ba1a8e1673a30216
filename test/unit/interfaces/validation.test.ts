import type { FastifyInstance } from 'fastify';
import { toProblem } from '../../../src/interfaces/http/error-handler';
import { registerValidators } from '../../../src/interfaces/http/validation';

type Validate = ((data: unknown) => boolean) & { errors?: object[] | null };

/** The validator the service compiles for a body of `schema`, as fastify asks it to. */
function bodyValidator(schema: object): Validate {
  let compiler: ((route: { schema: object; httpPart: string }) => Validate) | undefined;
  registerValidators({ setValidatorCompiler: (given: typeof compiler) => void (compiler = given) } as unknown as FastifyInstance);
  return compiler!({ schema, httpPart: 'body' });
}

const SCHEMA = {
  type: 'object',
  required: ['name', 'age'],
  additionalProperties: false,
  properties: { name: { type: 'string', maxLength: 3 }, age: { type: 'integer' }, tags: { type: 'array', maxItems: 2, items: { type: 'string' } } },
};

describe('a refused body names its offending fields (PRODUCT.md)', () => {
  const validate = bodyValidator(SCHEMA);

  /** The answer's errors[] for a body the validator refuses. */
  const errorsOf = (body: unknown) => {
    expect(validate(body)).toBe(false);
    return (toProblem(Object.assign(new Error('x'), { validation: validate.errors, validationContext: 'body' })).problem as { errors: { field: string; message: string }[] }).errors;
  };

  it('names every field once, with its first problem: a missing one, a wrong one, an unknown one', () => {
    expect(errorsOf({ name: 5, extra: true })).toEqual([
      { field: 'age', message: "must have required property 'age'" },
      { field: 'name', message: 'must be string' },
      { field: 'extra', message: 'is not a field of this request' },
    ]);
  });

  it('names a field of many bad items once', () => {
    expect(errorsOf({ name: 'a', age: 1, tags: Array.from({ length: 5000 }, () => 1) })).toEqual([{ field: 'tags', message: 'must NOT have more than 2 items' }]);
  });

  it('names at most twenty fields', () => {
    const unknown = Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`f${i}`, i]));
    const errors = errorsOf({ name: 'a', age: 1, ...unknown });
    expect(errors).toHaveLength(20);
    expect(errors.every((error) => error.message === 'is not a field of this request')).toBe(true);
  });

  it('passes a valid body', () => {
    expect(validate({ name: 'abc', age: 3, tags: ['x'] })).toBe(true);
  });
});
