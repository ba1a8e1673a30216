import { servedOpenApiDocument } from '../../../scripts/served-openapi';
import { type ObservedAnswer, type OpenApiDocument, OpenApiContract } from '../../support/openapi-contract';

const PROBLEM = 'application/problem+json; charset=utf-8';
const JSON_TYPE = 'application/json; charset=utf-8';
const problem = (status: number, code = 'SOMETHING') =>
  JSON.stringify({ type: `urn:problem:access-control:${code.toLowerCase()}`, title: 'T', status, detail: 'D', code });
const answer = (method: string, target: string, status: number, contentType: string | null, body = ''): ObservedAnswer => ({ method, target, status, contentType, body });

const users = { users: [{ _id: 'u1', email: 'a@example.com', role: { _id: 'r', name: 'admin', permissions: [] }, invited_date: '2026-01-31T12:00:00.000Z' }], pagination: { page: 1, page_size: 10, page_count: 1, total_document: 1 } };
const ec = { kty: 'EC', crv: 'P-256', x: 'abc', y: 'def', kid: 'k1', alg: 'ES256', use: 'sig' };
const rsa = { kty: 'RSA', n: 'abc', e: 'AQAB', kid: 'k2', alg: 'RS256', use: 'sig' };
const okp = { kty: 'OKP', crv: 'Ed25519', x: 'abc', kid: 'k3', alg: 'EdDSA', use: 'sig' };

/** The checker the e2e suites rely on: it must catch each way an answer can drift from the document. */
describe('the OpenAPI contract check', () => {
  let contract: OpenApiContract;

  beforeAll(async () => {
    contract = new OpenApiContract(JSON.parse(await servedOpenApiDocument()) as OpenApiDocument);
  });

  it('passes answers as documented, and counts them as seen', () => {
    expect(contract.check(answer('GET', '/v1/users?page=1', 200, JSON_TYPE, JSON.stringify(users)))).toEqual([]);
    expect(contract.check(answer('POST', '/v1/users/invite', 201, null))).toEqual([]);
    expect(contract.check(answer('POST', '/v1/users/01a1fc99-0000/invitation/resend', 404, PROBLEM, problem(404)))).toEqual([]);
    expect(contract.check(answer('GET', '/invitations/accept?token=x', 410, 'text/html; charset=utf-8', '<!doctype html>'))).toEqual([]);
    expect(contract.check(answer('GET', '/.well-known/jwks.json', 200, JSON_TYPE, JSON.stringify({ keys: [ec, rsa, okp] })))).toEqual([]);
    expect(contract.check(answer('GET', '/readyz', 503, JSON_TYPE, JSON.stringify({ status: 'not ready', database: 'down', migrations: 'unknown', draining: false })))).toEqual([]);
    expect([...contract.seen]).toEqual(expect.arrayContaining(['listUsers 200', 'inviteUser 201', 'resendInvitation 404', 'showAcceptInvitationPage 410', 'getJwks 200', 'getReadiness 503']));
  });

  it('refuses a status the operation does not declare', () => {
    expect(contract.check(answer('GET', '/v1/users', 418, PROBLEM, problem(418)))).toEqual([expect.stringContaining('listUsers answered 418, which it does not declare')]);
    expect(contract.check(answer('GET', '/healthz', 503, PROBLEM, problem(503)))).toHaveLength(1);
  });

  it('refuses an error not sent as problem+json, and a page not sent as HTML', () => {
    expect(contract.check(answer('POST', '/v1/users/invite', 409, JSON_TYPE, problem(409)))).toEqual([expect.stringContaining('not as application/problem+json')]);
    expect(contract.check(answer('GET', '/invitations/accept', 404, PROBLEM, problem(404)))).toEqual([expect.stringContaining('not as text/html')]);
  });

  it('refuses a body that breaks the schema, a body where none is declared, and a problem whose status differs', () => {
    const { pagination: _, ...withoutPagination } = users;
    expect(contract.check(answer('GET', '/v1/users', 200, JSON_TYPE, JSON.stringify(withoutPagination))).join()).toContain("must have required property 'pagination'");
    expect(contract.check(answer('GET', '/v1/users', 200, JSON_TYPE, '<html>'))).toEqual([expect.stringContaining('not JSON')]);
    expect(contract.check(answer('POST', '/v1/users/invite', 201, JSON_TYPE, '{"_id":"u1"}'))).toEqual([expect.stringContaining('declares no body')]);
    expect(contract.check(answer('POST', '/v1/auth/signin', 401, PROBLEM, problem(400)))).toEqual([expect.stringContaining('the problem says status 400')]);
    expect(contract.check(answer('POST', '/v1/auth/signin', 401, PROBLEM, '{"status":401}')).join()).toContain("must have required property 'code'");
  });

  it('holds the key set to the key types verifiers take: EC P-256, RSA, OKP Ed25519, each with kid, alg and use', () => {
    const keys = (...list: object[]) => answer('GET', '/.well-known/jwks.json', 200, JSON_TYPE, JSON.stringify({ keys: list }));
    const { n: _, ...rsaWithoutModulus } = rsa;
    const { alg: __, ...ecWithoutAlg } = ec;
    const { y: ___, ...ecWithoutY } = ec;
    const { x: ____, ...okpWithoutX } = okp;
    const { e: _____, ...rsaWithoutExponent } = rsa;
    const wrongMembers = [ecWithoutY, okpWithoutX, rsaWithoutExponent, { ...rsa, alg: 'ES256' }, { ...okp, crv: 'P-256' }, { ...ec, kty: 'oct' }];
    for (const bad of [rsaWithoutModulus, ecWithoutAlg, { ...ec, crv: 'Ed25519' }, { ...okp, alg: 'ES256' }, { ...ec, use: 'enc' }, ...wrongMembers]) {
      expect({ key: bad, problems: contract.check(keys(bad)).length > 0 }).toEqual({ key: bad, problems: true });
    }
  });

  it('holds a path no operation has to problem+json errors, and leaves its successes alone (the UI, the favicon)', () => {
    expect(contract.check(answer('GET', '/nope', 404, PROBLEM, problem(404)))).toEqual([]);
    expect(contract.check(answer('PUT', '/v1/users', 405, PROBLEM, problem(405)))).toEqual([]);
    expect(contract.check(answer('GET', '/nope', 404, 'text/plain', 'not found'))).toHaveLength(1);
    expect(contract.check(answer('GET', '/docs/', 200, 'text/html', '<html>'))).toEqual([]);
  });

  it('holds a known path’s 405 to the error format of the path’s operations: OAuth’s JSON on an OAuth endpoint', () => {
    const oauth = JSON.stringify({ error: 'invalid_request', error_description: 'GET is not allowed on /oauth/token; allowed: POST' });
    expect(contract.check(answer('GET', '/oauth/token', 405, JSON_TYPE, oauth))).toEqual([]);
    expect(contract.check(answer('PUT', '/oauth/revoke', 405, JSON_TYPE, oauth))).toEqual([]);
    expect(contract.check(answer('GET', '/oauth/token', 405, JSON_TYPE, '{"error":"no_such_code"}'))).toHaveLength(1);
    expect(contract.check(answer('PUT', '/v1/users', 405, JSON_TYPE, oauth))).toEqual([expect.stringContaining('not as application/problem+json')]);
  });

  it('finds /metrics on the management listener only', () => {
    expect(contract.operationFor('GET', '/metrics', 'management')?.id).toBe('getMetrics');
    expect(contract.operationFor('GET', '/metrics')).toBeUndefined();
    expect(contract.check(answer('GET', '/metrics', 200, 'text/plain; version=0.0.4; charset=utf-8', 'up 1\n'), 'management')).toEqual([]);
    expect(contract.check(answer('GET', '/metrics', 404, PROBLEM, problem(404)))).toEqual([]);
  });

  it('checks a HEAD answer as its GET, without a body', () => {
    expect(contract.check(answer('HEAD', '/healthz', 200, JSON_TYPE))).toEqual([]);
    expect(contract.check(answer('HEAD', '/healthz', 418, JSON_TYPE))).toHaveLength(1);
  });
});
