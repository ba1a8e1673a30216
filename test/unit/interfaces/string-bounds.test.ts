import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { loadConfig } from '../../../src/infrastructure/config/config';
import { buildContainer } from '../../../src/infrastructure/container';
import { createLogger } from '../../../src/infrastructure/logging/logger';
import { buildHttpApp } from '../../../src/interfaces/http/app';

type Schema = { type?: string | string[]; maxLength?: number; maxItems?: number; enum?: unknown[]; const?: unknown; format?: string; properties?: Record<string, Schema>; items?: Schema | Schema[]; anyOf?: Schema[]; oneOf?: Schema[]; allOf?: Schema[]; additionalProperties?: boolean | Schema };

/** Every string and array reachable from a schema, by path, that has no upper bound. */
function unbounded(schema: Schema | undefined, at: string, found: string[]): void {
  if (!schema || typeof schema !== 'object') return;
  const types = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : [];
  const fixed = schema.enum !== undefined || schema.const !== undefined;
  if (types.includes('string') && !fixed && typeof schema.maxLength !== 'number') found.push(`${at}: string without maxLength`);
  if (types.includes('array') && typeof schema.maxItems !== 'number') found.push(`${at}: array without maxItems`);
  for (const [name, child] of Object.entries(schema.properties ?? {})) unbounded(child, `${at}.${name}`, found);
  if (typeof schema.additionalProperties === 'object') unbounded(schema.additionalProperties, `${at}.*`, found);
  const items = Array.isArray(schema.items) ? schema.items : schema.items ? [schema.items] : [];
  items.forEach((item, i) => unbounded(item, `${at}[${i}]`, found));
  for (const key of ['anyOf', 'oneOf', 'allOf'] as const) (schema[key] ?? []).forEach((s, i) => unbounded(s, `${at}.${key}[${i}]`, found));
}

describe('string bounds: no request input is unbounded', () => {
  let app: FastifyInstance;
  let dataDir: string;
  const routes: { method: string; url: string; schema?: { body?: Schema; querystring?: Schema; params?: Schema; headers?: Schema } }[] = [];

  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'ac-bounds-'));
    const config = loadConfig({ DATA_DIR: dataDir, DATABASE_URL: `sqlite:${path.join(dataDir, 'db.sqlite')}`, LOG_LEVEL: 'silent', PORT: '0' });
    const container = buildContainer(config, createLogger('silent'));
    // The app is built (every route registered with its schema), never connected nor listening.
    app = await buildHttpApp(container);
    await app.ready();
    // Each route's request schema, as the OpenAPI document built from the registered routes shows it.
    routes.push(...collect(app));
  });
  afterAll(async () => {
    await app?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  function collect(instance: FastifyInstance) {
    const found: typeof routes = [];
    const doc = instance.swagger() as { paths: Record<string, Record<string, { parameters?: { in: string; name: string; schema: Schema }[]; requestBody?: { content: Record<string, { schema: Schema }> } }>> };
    for (const [url, operations] of Object.entries(doc.paths)) {
      for (const [method, operation] of Object.entries(operations)) {
        const querystring: Schema = { type: 'object', properties: {} };
        const params: Schema = { type: 'object', properties: {} };
        const headers: Schema = { type: 'object', properties: {} };
        for (const p of operation.parameters ?? []) {
          if (p.in === 'query') querystring.properties![p.name] = p.schema;
          if (p.in === 'path') params.properties![p.name] = p.schema;
          if (p.in === 'header') headers.properties![p.name] = p.schema;
        }
        // Each body under its one media type: JSON, or the invitation page's form.
        const body = Object.values(operation.requestBody?.content ?? {})[0]?.schema;
        found.push({ method: method.toUpperCase(), url, schema: { body, querystring, params, headers } });
      }
    }
    return found;
  }

  it('finds the routes that take input: sign-in, invite, accept, the lists, resend, revoke, one user’s administration, roles, the accept page and its form', () => {
    const withInput = routes.filter((r) => r.schema?.body || Object.keys(r.schema?.querystring?.properties ?? {}).length > 0 || Object.keys(r.schema?.params?.properties ?? {}).length > 0);
    expect(withInput.map((r) => `${r.method} ${r.url}`).sort()).toEqual([
      'DELETE /v1/me/mfa/totp',
      'DELETE /v1/me/mfa/webauthn/{id}',
      'DELETE /v1/roles/{id}',
      'DELETE /v1/service-accounts/{id}',
      'DELETE /v1/service-accounts/{id}/secrets/{secretId}',
      'DELETE /v1/users/{id}',
      'DELETE /v1/users/{id}/invitation',
      'DELETE /v1/users/{id}/mfa',
      'GET /invitations/accept',
      'GET /password-reset',
      'GET /v1/audit-events',
      'GET /v1/audit-events/export',
      'GET /v1/permissions',
      'GET /v1/roles',
      'GET /v1/roles/{id}',
      'GET /v1/service-accounts',
      'GET /v1/service-accounts/{id}',
      'GET /v1/service-accounts/{id}/secrets',
      'GET /v1/users',
      'GET /v1/users/{id}',
      'PATCH /v1/me/mfa/webauthn/{id}',
      'PATCH /v1/roles/{id}',
      'PATCH /v1/service-accounts/{id}',
      'PATCH /v1/users/{id}',
      'POST /invitations/accept',
      'POST /oauth/introspect',
      'POST /oauth/revoke',
      'POST /oauth/token',
      'POST /password-reset',
      'POST /v1/auth/console-session',
      'POST /v1/auth/password-reset',
      'POST /v1/auth/password-reset/confirm',
      'POST /v1/auth/refresh',
      'POST /v1/auth/signin',
      'POST /v1/auth/signin/mfa',
      'POST /v1/auth/signin/mfa/webauthn-options',
      'POST /v1/invitations/accept',
      'POST /v1/me/mfa/recovery-codes',
      'POST /v1/me/mfa/totp',
      'POST /v1/me/mfa/totp/confirm',
      'POST /v1/me/mfa/webauthn',
      'POST /v1/me/mfa/webauthn/registration-options',
      'POST /v1/me/password',
      'POST /v1/roles',
      'POST /v1/service-accounts',
      'POST /v1/service-accounts/{id}/secrets',
      'POST /v1/users/invite',
      'POST /v1/users/{id}/deactivate',
      'POST /v1/users/{id}/invitation/resend',
      'POST /v1/users/{id}/reactivate',
      'PUT /v1/service-accounts/{id}/keys',
    ]);
  });

  it('every string has a maxLength and every array a maxItems, in every body, query, path and header schema', () => {
    const found: string[] = [];
    for (const route of routes) {
      for (const part of ['body', 'querystring', 'params', 'headers'] as const) unbounded(route.schema?.[part], `${route.method} ${route.url} ${part}`, found);
    }
    expect(found).toEqual([]);
    // The walk really looks at strings: a schema without a bound is reported.
    const probe: string[] = [];
    unbounded({ type: 'object', properties: { a: { type: 'string' }, b: { type: 'array', items: { type: 'string', maxLength: 1 } } } }, 'probe', probe);
    expect(probe).toEqual(['probe.a: string without maxLength', 'probe.b: array without maxItems']);
  });

  it('every body refuses unknown fields (additionalProperties: false, refused with a 400 naming the field)', () => {
    // But the OAuth endpoints' forms (#21): RFC 6749 §3.2 says a server ignores parameters it does not know (RFC 7009 and
    // RFC 7662 take the same form: token, token_type_hint and the client's credentials).
    const bodies = routes.filter((r) => r.schema?.body && !['/oauth/token', '/oauth/revoke', '/oauth/introspect'].includes(r.url));
    // Sign-in, refresh, own password, the reset request, confirmation and form (#10), invite, accept, its form, a user's PATCH, a role's POST and PATCH (#11),
    // a service account's POST and PATCH, its secrets' POST and its keys' PUT (#21), the second factor's start, confirm, removal and sign-in step,
    // the recovery codes' regeneration, and the passkeys' registration options, registration, rename, removal and sign-in options (#24), the
    // console session's hand-over (#25).
    expect(bodies).toHaveLength(27);
    for (const route of bodies) expect({ route: route.url, additionalProperties: route.schema!.body!.additionalProperties }).toEqual({ route: route.url, additionalProperties: false });
  });
});
