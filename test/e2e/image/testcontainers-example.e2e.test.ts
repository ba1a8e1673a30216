/**
 * The testcontainers example other teams copy (examples/testcontainers), run as they run it:
 * the service's image with a MariaDB and a Kafka on one network, through the engine's socket.
 */
import { exampleInviteAndReadEvent, startAccessControl, type AccessControl } from '../../../examples/testcontainers/access-control.example';
import { IMAGE, requireContainerEngine } from '../../support/containers';

jest.setTimeout(300_000);

let service: AccessControl | undefined;

beforeAll(async () => {
  await requireContainerEngine();
  service = await startAccessControl(IMAGE);
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
