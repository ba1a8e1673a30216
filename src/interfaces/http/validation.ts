import Ajv, { type Options } from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifyInstance } from 'fastify';

const COMMON: Options = { removeAdditional: true, useDefaults: true, allErrors: true, strict: false };

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
