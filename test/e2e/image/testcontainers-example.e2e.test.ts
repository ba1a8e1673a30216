/**
 * The testcontainers example other teams copy (examples/testcontainers), run as they run it:
 * the service's image with a MariaDB and a Kafka on one network, through the engine's socket. The example starts its
 * containers with the plain `start()`; this test starts the example again when Podman's host-port clash
 * (test/support/container-start.ts) fails it, so that a clash with the rest of the suite does not fail the run.
 */
import { exampleInviteAndReadEvent, startAccessControl, type AccessControl } from '../../../examples/testcontainers/access-control.example';
import { retryWhilePortTaken } from '../../support/container-start';
import { startExpressResourceServer } from '../../support/oauth-clients';
import { IMAGE, requireContainerEngine } from '../../support/containers';

jest.setTimeout(300_000);

let service: AccessControl | undefined;

beforeAll(async () => {
  await requireContainerEngine();
  service = await retryWhilePortTaken(() => startAccessControl(IMAGE));
});

afterAll(async () => {
  await service?.stop();
});

it('starts the service, signs the admin in, invites, and reads the UserInvited event with the request id', async () => {
  const event = await exampleInviteAndReadEvent(service!);
  expect(event.type).toBe('UserInvited');
  expect(event.requestid).toBe('my-test-42');
  const users = await fetch(`${service!.url}/v1/users`, { headers: { authorization: `Bearer ${await service!.signIn()}` } });
  expect(users.status).toBe(200);
  const body = (await users.json()) as { users: { email: string }[] };
  expect(body.users.map((u) => u.email)).toContain('grace@example.test');
});

it('issues tokens a verifier given only the URL the test reaches it at accepts (express-oauth2-jwt-bearer: discovery, then the keys)', async () => {
  const { url } = service!;
  const discovery = await fetch(`${url}/.well-known/openid-configuration`);
  expect(((await discovery.json()) as { issuer: string }).issuer).toBe(url);
  const verifier = await startExpressResourceServer(url, 'access-control');
  try {
    const answer = await fetch(`${verifier.url}/whoami`, { headers: { authorization: `Bearer ${await service!.signIn()}` } });
    expect(answer.status).toBe(200);
    expect(((await answer.json()) as { sub: string }).sub).toMatch(/^[0-9a-f-]{36}$/);
  } finally {
    await verifier.stop();
  }
});
