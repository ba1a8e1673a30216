import createClient from 'openapi-fetch';
import { asProblem, type Failure } from '../logic/problems';
import type { components, paths } from './openapi';

export type Schemas = components['schemas'];
export type User = Schemas['User'];
export type UserDetail = Schemas['UserDetail'];
export type Role = Schemas['Role'];
export type Permission = Schemas['Permission'];
export type Client = ReturnType<typeof createClient<paths>>;

/** A failed call, as the console shows it (logic/problems.ts puts it in words). */
export class ApiFailure extends Error {
  constructor(readonly failure: Failure) {
    super(failure.kind === 'network' ? 'network' : `${failure.problem.status} ${failure.problem.code}`);
  }
}

/** What openapi-fetch resolves with (the generated types keep `data` exact). */
interface Answer<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

/** The answer's data, or an ApiFailure (a problem, or the network gone). */
export async function call<T>(pending: Promise<Answer<T>>): Promise<T> {
  return (await answered(pending)).data;
}

/** As call, with the answer's headers (an ETag, a Location). */
export async function answered<T>(pending: Promise<Answer<T>>): Promise<{ data: T; headers: Headers }> {
  let answer: Answer<T>;
  try {
    answer = await pending;
  } catch (error) {
    if (error instanceof ApiFailure) throw error;
    throw new ApiFailure({ kind: 'network' });
  }
  const { response } = answer;
  if (!response.ok) {
    const retryAfter = Number(response.headers.get('retry-after'));
    throw new ApiFailure({
      kind: 'problem',
      problem: asProblem(response.status, answer.error),
      ...(Number.isFinite(retryAfter) && retryAfter > 0 ? { retryAfterSeconds: retryAfter } : {}),
    });
  }
  return { data: answer.data as T, headers: response.headers };
}

/** The failure of anything thrown: an ApiFailure's, or (a bug of ours) one in words rather than a blank screen. */
export function failureOf(error: unknown): Failure {
  if (error instanceof ApiFailure) return error.failure;
  return { kind: 'problem', problem: { status: 0, code: 'CONSOLE_ERROR', detail: error instanceof Error ? error.message : String(error) } };
}

export interface TokenSource {
  /** The access token in memory, or null. */
  accessToken(): string | null;
  /** A new access token from the session cookie; false when the session is gone (then it signs out). */
  renew(): Promise<boolean>;
}

/**
 * The API client every screen uses: the bearer token from memory on each request, and on a 401 one renewal of
 * the session and one retry, so an access token that expired while the console was open costs nothing.
 */
export function createApi(tokens: TokenSource): Client {
  const authorised = (request: Request): Request => {
    const token = tokens.accessToken();
    if (!token) return request;
    const headers = new Headers(request.headers);
    headers.set('authorization', `Bearer ${token}`);
    return new Request(request, { headers });
  };
  const sessionFetch = async (request: Request): Promise<Response> => {
    const again = request.clone();
    const first = await fetch(authorised(request));
    if (first.status !== 401 || !tokens.accessToken()) return first;
    if (!(await tokens.renew())) return first;
    return fetch(authorised(again));
  };
  return createClient<paths>({ baseUrl: location.origin, fetch: sessionFetch });
}

/** A client without the session (sign-in, the session's own calls). */
export function createPlainApi(): Client {
  return createClient<paths>({ baseUrl: location.origin });
}
