import type { FastifyRequest } from 'fastify';
import { ValidationError } from '../../../domain/shared/domain-error';

/**
 * The schema validator would coerce "1e3", " 7" or "0x10" into integers; a page number is
 * plain decimal digits, and anything else is a 400. Runs before validation, on the raw query.
 */
export function strictIntegerQuery(names: readonly string[]) {
  return async (request: FastifyRequest): Promise<void> => {
    const query = request.query as Record<string, unknown>;
    const problems = names
      .filter((name) => query[name] !== undefined && !(typeof query[name] === 'string' && /^[0-9]{1,10}$/.test(query[name] as string)))
      .map((name) => ({ field: name, message: Array.isArray(query[name]) ? 'is given more than once' : 'must be a positive integer' }));
    if (problems.length > 0) throw new ValidationError(problems);
  };
}
