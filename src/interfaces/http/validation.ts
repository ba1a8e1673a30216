import Ajv, { type Options } from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifyInstance } from 'fastify';

// allErrors stays off: Ajv's security notes advise against it for untrusted data (a body crafted to fail
// every rule of a large schema costs the validator work in proportion). A request learns its first error.
const COMMON: Options = { useDefaults: true, allErrors: false, strict: false };

/**
 * Query strings arrive as text, so they are coerced ("5" → 5); JSON bodies carry real types, so a
 * body field of the wrong type ([ "admin" ] for a string, 12 for a string) is refused, never coerced.
 * A body field the route does not name (`additionalProperties: false`) is refused with a 400 naming it,
 * never dropped in silence: the server does what its OpenAPI document says.
 */
export function registerValidators(app: FastifyInstance): void {
  const forText = addFormats(new Ajv({ ...COMMON, coerceTypes: 'array' }));
  const forBody = addFormats(new Ajv({ ...COMMON, removeAdditional: false, coerceTypes: false }));
  app.setValidatorCompiler(({ schema, httpPart }) =>
    (httpPart === 'body' ? forBody : forText).compile(schema),
  );
}
