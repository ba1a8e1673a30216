/**
 * Load generators: closed loop by duration or by count (autocannon), and an open-loop scheduler
 * (request i leaves at t0 + i/rate whatever happened to the others).
 */
import http from 'node:http';
import autocannon from 'autocannon';

export interface Measure { rps: number; p50: number; p99: number; errors: number }

export interface LoadSpec {
  method?: 'GET' | 'POST';
  path: string;
  token?: string;
  body?: () => string;
  /** The body's media type (default application/json), e.g. an OAuth form. */
  contentType?: string;
  /** More request headers, e.g. HTTP Basic client credentials. */
  headers?: Record<string, string>;
  /** A path drawn anew for each closed-loop request (e.g. a random page), over `path`. */
  requestPath?: () => string;
  /** Headers drawn anew for each request (e.g. the credentials of one of many clients), over `headers`. */
  requestHeaders?: () => Record<string, string>;
  /** Sees every answer of a closed-loop run (autocannon's onResponse): how a chain of requests learns its next step. */
  onResponse?: (status: number, body: string) => void;
  /** Runs before each closed-loop run, outside its window, with the run's connection count (e.g. mints what the run will use). */
  prepare?: (connections: number) => Promise<void>;
}

export const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};
export const percentile = (values: number[], p: number) => {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
};
export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function autocannonRun(url: string, spec: LoadSpec, connections: number, until: { duration: number } | { amount: number }) {
  const headers: Record<string, string> = { ...spec.headers };
  if (spec.token) headers.authorization = `Bearer ${spec.token}`;
  if (spec.body) headers['content-type'] = spec.contentType ?? 'application/json';
  const { body, onResponse } = spec;
  return autocannon({
    url,
    connections,
    ...until,
    requests: [
      {
        method: spec.method ?? 'GET',
        path: spec.path,
        headers,
        ...(body || spec.requestHeaders || spec.requestPath
          ? {
              setupRequest: (request: autocannon.Request) => ({
                ...request,
                ...(spec.requestPath ? { path: spec.requestPath() } : {}),
                ...(body ? { body: body() } : {}),
                ...(spec.requestHeaders ? { headers: { ...request.headers, ...spec.requestHeaders() } } : {}),
              }),
            }
          : {}),
        ...(onResponse ? { onResponse: (status: number, text: string) => onResponse(status, text) } : {}),
      },
    ],
  });
}

export async function closedLoop(url: string, spec: LoadSpec, connections: number, seconds: number): Promise<Measure> {
  await spec.prepare?.(connections);
  const result = await autocannonRun(url, spec, connections, { duration: seconds });
  const ok = result['2xx'];
  return { rps: ok / seconds, p50: result.latency.p50, p99: result.latency.p99, errors: result.errors + result.non2xx + result.timeouts };
}

/** Closed loop until `amount` requests were answered: a run of known count. */
export async function fixedCount(url: string, spec: LoadSpec, connections: number, amount: number): Promise<{ ok: number; errors: number; seconds: number }> {
  await spec.prepare?.(connections);
  const started = performance.now();
  const result = await autocannonRun(url, spec, connections, { amount });
  return { ok: result['2xx'], errors: result.errors + result.non2xx + result.timeouts, seconds: (performance.now() - started) / 1000 };
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 512 });
export const closeAgent = () => agent.destroy();

function request(url: string, spec: LoadSpec): Promise<number> {
  return new Promise((resolve, reject) => {
    const body = spec.body?.();
    const req = http.request(
      `${url}${spec.path}`,
      {
        method: spec.method ?? 'GET',
        agent,
        headers: {
          ...spec.headers,
          ...spec.requestHeaders?.(),
          ...(spec.token ? { authorization: `Bearer ${spec.token}` } : {}),
          ...(body ? { 'content-type': spec.contentType ?? 'application/json', 'content-length': Buffer.byteLength(body) } : {}),
        },
      },
      (response) => {
        response.resume();
        response.on('end', () => resolve(response.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** Open loop: request i is sent at t0 + i/rate whatever happened to the others; latency counts from the scheduled time. */
export async function openLoop(url: string, spec: LoadSpec, rate: number, seconds: number, onSent?: (scheduledAt: number, i: number) => void): Promise<Measure> {
  const total = Math.max(1, Math.round(rate * seconds));
  const latencies: number[] = [];
  let errors = 0;
  const t0 = performance.now() + 20;
  const inFlight: Promise<void>[] = [];
  for (let i = 0; i < total; i++) {
    const at = t0 + (i * 1000) / rate;
    const wait = at - performance.now();
    if (wait > 1) await sleep(wait);
    onSent?.(Date.now() - Math.max(0, performance.now() - at), i);
    inFlight.push(
      request(url, spec).then(
        (status) => {
          if (status >= 400) errors++;
          latencies.push(performance.now() - at);
        },
        () => {
          errors++;
        },
      ),
    );
  }
  await Promise.all(inFlight);
  return { rps: latencies.length / seconds, p50: percentile(latencies, 50), p99: percentile(latencies, 99), errors };
}

export async function signInToken(url: string, credentials: { username: string; password: string }): Promise<string> {
  const response = await fetch(`${url}/v1/auth/signin`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: credentials.username, password: credentials.password }),
  });
  if (response.status !== 200) throw new Error(`sign-in failed: ${response.status}`);
  return ((await response.json()) as { accessToken: string }).accessToken;
}
