import { AUDIT_OUTCOMES } from '../../../domain/audit/audit-entry';

export interface AuditQuery {
  actor?: string;
  target?: string;
  action?: string;
  outcome?: 'success' | 'failure';
  from?: string;
  to?: string;
  request_id?: string;
}

/** Ids are ASCII (the columns are ascii_bin): anything else is a 400, never a database error. */
const asciiId = (description: string) => ({ type: 'string', minLength: 1, maxLength: 64, pattern: '^[\\x21-\\x7e]+$', description }) as const;

export const auditFilterProperties = {
  actor: asciiId('Only entries whose actor has this id (a user’s or a service account’s `_id`)'),
  target: asciiId('Only entries about this user, role or service account (its `_id`)'),
  action: { type: 'string', minLength: 1, maxLength: 64, pattern: '^[a-z_.]+$', description: 'Only actions starting so: `user.`, `user.role_changed`, `auth.signin`' },
  outcome: { type: 'string', enum: [...AUDIT_OUTCOMES] },
  from: { type: 'string', format: 'date-time', maxLength: 40, description: 'From this time on (inclusive)' },
  to: { type: 'string', format: 'date-time', maxLength: 40, description: 'Before this time (exclusive)' },
  request_id: { ...asciiId('Only the entries one request wrote (its `x-request-id`)'), maxLength: 128 },
} as const;

const nullableText = { type: ['string', 'null'] } as const;

export const auditEvent = {
  type: 'object',
  required: ['_id', 'time', 'action', 'outcome', 'code', 'actor', 'target', 'source', 'request_id', 'changes'],
  properties: {
    _id: { type: 'string' },
    time: { type: 'string', format: 'date-time' },
    action: { type: 'string', description: 'A stable name, `<group>.<what happened>`: `user.role_changed`, `auth.signin_failed`, …' },
    outcome: { type: 'string', enum: [...AUDIT_OUTCOMES] },
    code: { ...nullableText, description: 'Why: a refusal’s internal reason (`wrong_password`, `locked`, …) or error code' },
    actor: {
      type: 'object',
      required: ['type', '_id', 'name'],
      properties: { type: { type: 'string', enum: ['user', 'service_account', 'anonymous'] }, _id: nullableText, name: { ...nullableText, description: 'Its name then' } },
    },
    target: {
      type: ['object', 'null'],
      required: ['type', '_id', 'snapshot'],
      properties: { type: { type: 'string' }, _id: nullableText, snapshot: { ...nullableText, description: 'What it was called then' } },
    },
    source: {
      type: 'object',
      required: ['address', 'user_agent'],
      properties: { address: { ...nullableText, description: 'The client’s address as TRUSTED_PROXIES resolves it' }, user_agent: nullableText },
    },
    request_id: nullableText,
    changes: {
      type: 'array',
      items: {
        type: 'object',
        required: ['field', 'before', 'after'],
        properties: {
          field: { type: 'string' },
          before: { description: 'The value before: text, number, boolean, a list of names, or null' },
          after: { description: 'The value after, as `before`' },
        },
      },
    },
  },
} as const;
