import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '../../application/shared/pagination';

/** Shared JSON schemas: they validate requests, shape responses (no field leaks) and generate /docs. */
export const ProblemSchema = {
  $id: 'Problem',
  type: 'object',
  description: 'RFC 9457 problem details',
  required: ['type', 'title', 'status', 'detail', 'code'],
  properties: {
    type: { type: 'string' },
    title: { type: 'string' },
    status: { type: 'integer' },
    detail: { type: 'string' },
    code: { type: 'string', description: 'Stable error code' },
    errors: {
      type: 'array',
      items: {
        type: 'object',
        required: ['field', 'message'],
        properties: { field: { type: 'string' }, message: { type: 'string' } },
      },
    },
  },
} as const;

export const PaginationSchema = {
  $id: 'Pagination',
  type: 'object',
  required: ['page', 'page_size', 'page_count', 'total_document'],
  properties: {
    page: { type: 'integer' },
    page_size: { type: 'integer' },
    page_count: { type: 'integer' },
    total_document: { type: 'integer' },
  },
} as const;

const datetime = { type: 'string', format: 'date-time', description: 'ISO 8601 UTC with milliseconds' } as const;

export const UserSchema = {
  $id: 'User',
  type: 'object',
  description: 'Fields not known yet (a pending invitee’s name, username, joined_date) are left out.',
  required: ['_id', 'email', 'role', 'invited_date'],
  properties: {
    _id: { type: 'string' },
    name: { type: 'string' },
    email: { type: 'string' },
    username: { type: 'string' },
    role: {
      type: 'object',
      required: ['_id', 'name', 'permissions'],
      properties: {
        _id: { type: 'string' },
        name: { type: 'string' },
        permissions: { type: 'array', items: { type: 'string' } },
      },
    },
    invited_date: datetime,
    invited_by: { type: 'string' },
    joined_date: datetime,
    updated_date: datetime,
    updated_by: { type: 'string' },
  },
} as const;

export const PermissionSchema = {
  $id: 'Permission',
  type: 'object',
  required: ['_id', 'group', 'name'],
  properties: { _id: { type: 'string' }, group: { type: 'string' }, name: { type: 'string' } },
} as const;

export const SHARED_SCHEMAS = [ProblemSchema, PaginationSchema, UserSchema, PermissionSchema];

export const problemRef = { $ref: 'Problem#' } as const;

/** The problems any authenticated route can answer with. */
export const protectedProblems = {
  400: problemRef,
  401: problemRef,
  403: problemRef,
  503: problemRef,
} as const;

export const pageQueryProperties = {
  page: { type: 'integer', minimum: 1, maximum: 1_000_000_000, default: 1, description: 'Page number, from 1' },
  page_size: {
    type: 'integer',
    minimum: 1,
    maximum: MAX_PAGE_SIZE,
    default: DEFAULT_PAGE_SIZE,
    description: `Items per page, 1 to ${MAX_PAGE_SIZE}`,
  },
} as const;

export const PAGE_PARAMS = ['page', 'page_size'] as const;
