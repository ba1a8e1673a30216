/**
 * Base of every business rule violation. `code` is stable and part of the public
 * contract (clients switch on it); the HTTP status lives in the interfaces layer.
 */
export abstract class DomainError extends Error {
  abstract readonly code: string;

  constructor(
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

export interface FieldProblem {
  field: string;
  message: string;
}

export class ValidationError extends DomainError {
  readonly code = 'VALIDATION_FAILED';

  constructor(readonly problems: FieldProblem[]) {
    super(problems.map((p) => `${p.field}: ${p.message}`).join('; '));
  }
}
