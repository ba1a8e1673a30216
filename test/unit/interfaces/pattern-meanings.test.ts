import { servedOpenApiDocument } from '../../../scripts/served-openapi';
import { PATTERN_MEANINGS, toProblem } from '../../../src/interfaces/http/error-handler';

/** Every `pattern` anywhere in a schema of the document. */
function patternsIn(node: unknown, found = new Set<string>()): Set<string> {
  if (Array.isArray(node)) for (const item of node) patternsIn(item, found);
  else if (node && typeof node === 'object') {
    for (const [key, value] of Object.entries(node)) {
      if (key === 'pattern' && typeof value === 'string') found.add(value);
      else patternsIn(value, found);
    }
  }
  return found;
}

/** A refused value is told in words: no client is shown a schema's regular expression. */
describe('what a refused pattern tells the client', () => {
  it('has words for every pattern the served document holds', async () => {
    const patterns = [...patternsIn(JSON.parse(await servedOpenApiDocument()))];
    expect(patterns.length).toBeGreaterThan(5);
    expect(patterns.filter((pattern) => !PATTERN_MEANINGS[pattern])).toEqual([]);
  });

  it('answers those words for a pattern a value failed, and the validator’s own message otherwise', () => {
    const failed = (pattern: string) =>
      toProblem(Object.assign(new Error('x'), { validation: [{ keyword: 'pattern', instancePath: '/code', message: `must match pattern "${pattern}"`, params: { pattern } }], validationContext: 'body' }))
        .problem as { errors?: { field: string; message: string }[] };
    expect(failed('^[0-9]{3} ?[0-9]{3}$').errors).toEqual([{ field: 'code', message: 'must be six digits (123456, or 123 456 as authenticator apps show it)' }]);
    expect(failed('^x$').errors).toEqual([{ field: 'code', message: 'must match pattern "^x$"' }]);
  });

  it('says what a body matching none or two of its forms (password or code) lacks, not the schema keyword', () => {
    const problem = toProblem(Object.assign(new Error('x'), { validation: [{ keyword: 'oneOf', instancePath: '', message: 'must match exactly one schema in oneOf', params: {} }], validationContext: 'body' }))
      .problem as { errors?: { field: string; message: string }[] };
    expect(problem.errors).toEqual([{ field: 'body', message: 'must hold exactly one of the forms this request takes (see its schema at /docs)' }]);
  });

  it('of a body that matches none of its forms names only the forms it lacks, beside the other fields', () => {
    const errorsOf = (validation: object[]) =>
      (toProblem(Object.assign(new Error('x'), { validation, validationContext: 'body' })).problem as { errors?: { field: string; message: string }[] }).errors;
    expect(errorsOf([
      { keyword: 'required', instancePath: '', schemaPath: '#/oneOf/0/required', message: "must have required property 'password'", params: { missingProperty: 'password' } },
      { keyword: 'required', instancePath: '', schemaPath: '#/oneOf/1/required', message: "must have required property 'code'", params: { missingProperty: 'code' } },
      { keyword: 'oneOf', instancePath: '', schemaPath: '#/oneOf', message: 'must match exactly one schema in oneOf', params: {} },
      { keyword: 'additionalProperties', instancePath: '', schemaPath: '#/additionalProperties', message: 'x', params: { additionalProperty: 'extra' } },
    ])).toEqual([
      { field: 'body', message: 'must hold exactly one of the forms this request takes (see its schema at /docs)' },
      { field: 'extra', message: 'is not a field of this request' },
    ]);
  });
});
