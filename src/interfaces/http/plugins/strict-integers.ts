import type { FastifyRequest } from 'fastify';
import { ValidationError } from '../../../domain/shared/domain-error';

/**
 * The schema validator would coerce "1e3", " 7" or "0x10" into integers; a page number is
 * plain decimal digits, and anything else is a 400, as is a number too large to be read exactly. Runs before
 * validation, on the raw query.
 */
export function strictIntegerQuery(names: readonly string[]) {
  return async (request: FastifyRequest): Promise<void> => {
    const query = request.query as Record<string, unknown>;
    const problems = names.flatMap((name) => {
      const value = query[name];
      if (value === undefined) return [];
      if (Array.isArray(value)) return [{ field: name, message: 'is given more than once' }];
      if (typeof value !== 'string' || !/^[0-9]+$/.test(value)) return [{ field: name, message: 'must be a positive integer' }];
      // Digits past what a number holds exactly (2^53 - 1) would be read as another number: said as the schema says a bound.
      return Number(value) > Number.MAX_SAFE_INTEGER ? [{ field: name, message: `must be <= ${Number.MAX_SAFE_INTEGER}` }] : [];
    });
    if (problems.length > 0) throw new ValidationError(problems);
  };
}
