import { asValue } from 'awilix';
import type { CloudEvent } from '../../src/infrastructure/messaging/cloud-event';
import { CapturingMailer } from '../support/capturing-mailer';
import { startTestApp, type TestApp } from '../support/test-app';

/** GET /metrics while an invitation flow runs, and the request id carried from HTTP into the event. */
describe('metrics and request ids end to end', () => {
  let app: TestApp;
  const mailer = new CapturingMailer();
  const events: CloudEvent[] = [];

  beforeAll(async () => {
    app = await startTestApp({}, { mailer: asValue(mailer) });
    app.api.container.cradle.inProcessBus!.subscribe(async (event) => {
      events.push(event);
    });
  });
  afterAll(async () => app.close());

  async function scrape(): Promise<string> {
    const response = await fetch(`${app.api.metricsUrl}/metrics`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const body = await response.text();
    // GET /metrics as the OpenAPI document has it, on its management server.
    app.contract.assert({ method: 'GET', target: '/metrics', status: response.status, contentType: response.headers.get('content-type'), body }, 'management');
    return body;
  }

  it('serves /metrics on the management port only, never on the public listener', async () => {
    expect(new URL(app.api.metricsUrl).port).not.toBe(new URL(app.url).port);
    const onPublic = await app.request('GET', '/metrics');
    expect(onPublic.status).toBe(404);
    expect(onPublic.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(await scrape()).toMatch(/^http_request_duration_seconds_count\{/m);
  });

  /** The value of one sample (`name{labels} value`); 0 when the series is not there yet. */
  function sample(text: string, name: string, labels: Record<string, string> = {}): number {
    const line = text.split('\n').find((l) => {
      if (!l.startsWith(`${name}{`) && !l.startsWith(`${name} `)) return false;
      return Object.entries(labels).every(([k, v]) => l.includes(`${k}="${v}"`));
    });
    return line ? Number(line.slice(line.lastIndexOf(' ') + 1)) : 0;
  }

  async function waitFor<T>(what: string, probe: () => T | undefined | Promise<T | undefined>): Promise<T> {
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline) {
      const value = await probe();
      if (value !== undefined) return value;
      await new Promise((r) => setTimeout(r, 25));
    }
    throw new Error(`timed out waiting for ${what}`);
  }

  it('counts sign-ins, invitations created and accepted, publishes, and times requests by route pattern', async () => {
    const before = await scrape();
    expect(sample(before, 'access_control_invitations_created_total')).toBe(0);
    // Default process metrics are there.
    expect(before).toMatch(/^process_cpu_user_seconds_total\{process="api"\} \d/m);
    expect(before).toMatch(/^nodejs_eventloop_lag_seconds\{process="api"\}/m);

    expect((await app.request('POST', '/v1/auth/signin', { json: { username: 'admin', password: 'not the password!!' } })).status).toBe(401);
    const token = await app.signIn();

    const requestId = 'trace-metrics-e2e-0001';
    const invited = await app.request('POST', '/v1/users/invite', {
      token,
      json: { email: 'metrics.joiner@example.com' },
      headers: { 'x-request-id': requestId },
    });
    expect(invited.status).toBe(201);
    expect(invited.headers.get('x-request-id')).toBe(requestId);

    const mail = await waitFor('the invitation mail', () => mailer.sent.find((m) => m.to === 'metrics.joiner@example.com'));
    const accepted = await app.request('POST', '/v1/invitations/accept', {
      json: { token: CapturingMailer.tokenOf(mail), name: 'Metrics Joiner', username: 'metrics.joiner', password: 'metrics joiner passphrase' },
    });
    expect(accepted.status).toBe(200);
    // The joiner's: the bootstrap admin's own UserJoined may be on the bus too.
    await waitFor('UserJoined published', () => events.find((e) => e.type === 'UserJoined' && (e.data as { username?: string }).username === 'metrics.joiner'));
    // The audit topic's events reach the outbox when their entries are sealed (a pass a second): one now, then the
    // relay, nudged by it, empties the outbox.
    await app.api.container.cradle.auditMaintenance.pass();
    await waitFor('the outbox emptied', async () => sample(await scrape(), 'access_control_outbox_backlog_events') === 0 || undefined);

    const after = await scrape();
    expect(sample(after, 'access_control_sign_ins_total', { outcome: 'success' })).toBe(1);
    expect(sample(after, 'access_control_sign_ins_total', { outcome: 'failure' })).toBe(1);
    expect(sample(after, 'access_control_invitations_created_total')).toBe(1);
    expect(sample(after, 'access_control_invitations_accepted_total')).toBe(1);
    expect(sample(after, 'access_control_events_published_total')).toBeGreaterThanOrEqual(2);
    expect(sample(after, 'access_control_events_publish_duration_seconds_count', { outcome: 'success' })).toBeGreaterThanOrEqual(1);
    expect(sample(after, 'access_control_outbox_backlog_events')).toBe(0);
    expect(sample(after, 'access_control_outbox_oldest_event_age_seconds')).toBe(0);
    expect(sample(after, 'access_control_db_pool_connections', { state: 'total' })).toBeGreaterThanOrEqual(1);
    expect(sample(after, 'http_request_duration_seconds_count', { route: '/v1/users/invite', method: 'POST', status_code: '201' })).toBe(1);
    // The route pattern, never the raw URL: no token, id or query string becomes a label.
    expect(after).not.toMatch(/route="[^"]*\?/);
    expect(after).not.toContain(CapturingMailer.tokenOf(mail));
  });

  it('carries the request id into the outbox row and out as the CloudEvents `requestid` attribute', async () => {
    const token = await app.signIn();
    const requestId = 'trace-metrics-e2e-0002';
    expect(
      (await app.request('POST', '/v1/users/invite', { token, json: { email: 'traced@example.com' }, headers: { 'x-request-id': requestId } })).status,
    ).toBe(201);
    const event = await waitFor('UserInvited for traced@', () =>
      events.find((e) => e.type === 'UserInvited' && (e.data as { email?: string }).email === 'traced@example.com'),
    );
    expect(event.requestid).toBe(requestId);
    const rows = (await app.api.container.cradle.dataSource.query('SELECT request_id FROM outbox_events WHERE id = ?', [event.id])) as {
      request_id: string | null;
    }[];
    expect(rows).toEqual([{ request_id: requestId }]);

    // Without a client id the service mints one, and the event carries that.
    const minted = await app.request('POST', '/v1/users/invite', { token, json: { email: 'minted@example.com' } });
    expect(minted.status).toBe(201);
    const mintedEvent = await waitFor('UserInvited for minted@', () =>
      events.find((e) => e.type === 'UserInvited' && (e.data as { email?: string }).email === 'minted@example.com'),
    );
    expect(mintedEvent.requestid).toBe(minted.headers.get('x-request-id'));
  });

  it('counts invitations created while the outbox backlog is computed by query', async () => {
    // A row nobody publishes yet shows up in the backlog gauge with its age. What the earlier tests wrote is
    // sealed and published first.
    await app.api.container.cradle.auditMaintenance.pass();
    await waitFor('the outbox emptied', async () => sample(await scrape(), 'access_control_outbox_backlog_events') === 0 || undefined);
    await app.api.container.cradle.outboxRelay.stop();
    const token = await app.signIn();
    expect((await app.request('POST', '/v1/users/invite', { token, json: { email: 'backlog@example.com' } })).status).toBe(201);
    // UserInvited, and the audit trail's entries for the sign-in and the invitation (#23), which join it as they
    // are sealed (a pass a second; one now).
    await app.api.container.cradle.auditMaintenance.pass();
    const text = await scrape();
    expect(sample(text, 'access_control_outbox_backlog_events')).toBe(3);
    expect(sample(text, 'access_control_outbox_oldest_event_age_seconds')).toBeGreaterThanOrEqual(0);
    expect(sample(text, 'access_control_outbox_oldest_event_age_seconds')).toBeLessThan(60);
    app.api.container.cradle.outboxRelay.start();
  });
});
