import Ajv, { type Options } from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifyInstance } from 'fastify';

// allErrors stays off: Ajv's security notes advise against it for untrusted data (a body crafted to fail
// every rule of a large schema costs the validator work in proportion). A request learns its first error.
const COMMON: Options = { removeAdditional: true, useDefaults: true, allErrors: false, strict: false };

/**
 * Query strings arrive as text, so they are coerced ("5" → 5); JSON bodies carry real types, so a
 * body field of the wrong type ([ "admin" ] for a string, 12 for a string) is refused, never coerced.
 */
export function registerValidators(app: FastifyInstance): void {
  const forText = addFormats(new Ajv({ ...COMMON, coerceTypes: 'array' }));
  const forBody = addFormats(new Ajv({ ...COMMON, coerceTypes: false }));
  app.setValidatorCompiler(({ schema, httpPart }) =>
    (httpPart === 'body' ? forBody : forText).compile(schema),
  );
}
