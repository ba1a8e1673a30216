import { ApiFailure, call, type Client, createPlainApi, failureOf, type TokenSource, type UserDetail } from '../api/client';
import type { paths } from '../api/openapi';
import { tokenClaims } from '../logic/format';
import type { Failure } from '../logic/problems';

type SecondStep = paths['/v1/auth/signin/mfa']['post']['requestBody']['content']['application/json'];

/** The header every console-session call carries: the CSRF defence (docs/DECISIONS.md, "The admin console"). */
const CONSOLE_HEADER = { 'x-console-session': '1' } as const;

export type SessionState =
  | { status: 'restoring' }
  | { status: 'signed-out'; notice?: string }
  /** The session could not be opened for now (429, 503, the network gone): not ended, so no sign-in; a retry may open it. */
  | { status: 'interrupted'; failure: Failure }
  | { status: 'signed-in'; me: UserDetail; enrollmentOnly: boolean };

export interface MfaStep {
  mfaToken: string;
  methods: string[];
  /** With a passkey among the methods: the assertion options the password step answered (good once). */
  webauthnOptions?: unknown;
}

/**
 * The console's session. The access token lives in this object's memory only; the refresh token never stays in
 * a script: a sign-in's is handed at once to POST /v1/auth/console-session, which uses it up and keeps its
 * successor in an HttpOnly cookie that a reload exchanges again. Renewals are one at a time across tabs (Web
 * Locks), so two tabs never present the same refresh token (the second would be taken for a theft).
 */
export class Session implements TokenSource {
  private token: string | null = null;
  private renewing: Promise<boolean> | null = null;
  private state: SessionState = { status: 'restoring' };
  private readonly listeners = new Set<(state: SessionState) => void>();
  private readonly plain: Client = createPlainApi();

  current(): SessionState {
    return this.state;
  }

  /**
   * Tells `listener` the state at once, then every change. The console renders from `current()` and subscribes after
   * its first paint: a restore that ended in between (a quick 401 on a loaded machine) left it "Opening the console…".
   */
  subscribe(listener: (state: SessionState) => void): () => void {
    this.listeners.add(listener);
    listener(this.state);
    return () => this.listeners.delete(listener);
  }

  accessToken(): string | null {
    return this.token;
  }

  /**
   * On load: a session cookie from before the reload gives a new access token, or (the renewal refused with 401)
   * the sign-in form shows. Any other failure leaves the cookie as it was: the console says what happened and
   * offers this again, since a sign-in would meet the same rate limit or database down.
   */
  async restore(): Promise<void> {
    try {
      if (await this.renew()) await this.loadMe();
      else this.set({ status: 'signed-out' });
    } catch (error) {
      this.set({ status: 'interrupted', failure: failureOf(error) });
    }
  }

  /** The password step: a session, or the second step's ticket (MFA_REQUIRED). Throws an ApiFailure otherwise. */
  async signIn(username: string, password: string): Promise<MfaStep | null> {
    const { data, error, response } = await this.request(() => this.plain.POST('/v1/auth/signin', { body: { username, password } }));
    if (response.status === 401 && error && typeof error === 'object' && (error as { code?: string }).code === 'MFA_REQUIRED') {
      const step = error as { mfa_token: string; methods: string[]; webauthn_options?: unknown };
      return { mfaToken: step.mfa_token, methods: step.methods, ...(step.webauthn_options ? { webauthnOptions: step.webauthn_options } : {}) };
    }
    const result = await call(Promise.resolve({ data, error, response }));
    await this.handOver(result.refreshToken);
    return null;
  }

  /** The second step, with the app's current code or a recovery code. */
  async completeMfa(step: MfaStep, answer: { code: string } | { recovery_code: string } | { webauthn: PublicKeyCredentialJSON }): Promise<{ recoveryCodesRemaining?: number }> {
    // The browser's credential JSON is the assertion the API reads (AuthenticationResponseJSON), typed by the DOM's lib.
    const body: SecondStep =
      'webauthn' in answer ? { mfa_token: step.mfaToken, webauthn: answer.webauthn as unknown as NonNullable<SecondStep['webauthn']> } : { mfa_token: step.mfaToken, ...answer };
    const result = await call(this.plain.POST('/v1/auth/signin/mfa', { body }));
    await this.handOver(result.refreshToken);
    return result.recovery_codes_remaining !== undefined ? { recoveryCodesRemaining: result.recovery_codes_remaining } : {};
  }

  /** New assertion options for the step (the password step's answer once). */
  async passkeyOptions(step: MfaStep): Promise<unknown> {
    return call(this.plain.POST('/v1/auth/signin/mfa/webauthn-options', { body: { mfa_token: step.mfaToken } }));
  }

  /** A refresh token a script was given (sign-in, a password change) goes into the cookie, used up on the way. */
  async handOver(refreshToken: string): Promise<void> {
    const { accessToken } = await call(
      this.plain.POST('/v1/auth/console-session', { params: { header: CONSOLE_HEADER }, body: { refreshToken } }),
    );
    this.token = accessToken;
    await this.loadMe();
  }

  /** A new access token from the cookie; one renewal at a time, in this tab and across tabs. */
  renew(): Promise<boolean> {
    this.renewing ??= this.exclusively(async () => {
      try {
        const { accessToken } = await call(this.plain.POST('/v1/auth/console-session/refresh', { params: { header: CONSOLE_HEADER } }));
        // The cookie is the browser's, shared by every tab: after a sign-out and someone else's sign-in in another
        // tab it renews that person's session. This tab shows (and acts for) whoever it signed in as, so it ends
        // rather than carry another person's token behind its screens; a reload opens the other session.
        const signedIn = this.state.status === 'signed-in' ? this.state.me._id : null;
        if (signedIn !== null && tokenClaims(accessToken).sub !== signedIn) {
          this.endLocally('You signed in as someone else in another tab, so this tab’s session has ended. Reload to continue as them, or sign in.');
          return false;
        }
        this.token = accessToken;
        return true;
      } catch (error) {
        if (error instanceof ApiFailure && error.failure.kind === 'problem' && error.failure.problem.status === 401) {
          this.endLocally('Your session has ended. Sign in again.');
          return false;
        }
        throw error;
      }
    }).finally(() => {
      this.renewing = null;
    });
    return this.renewing;
  }

  /** Reads who is signed in (after a sign-in, a renewal, an enrollment). */
  async loadMe(): Promise<void> {
    const me = await call(this.plain.GET('/v1/me', { headers: { authorization: `Bearer ${this.token}` } }));
    this.set({ status: 'signed-in', me, enrollmentOnly: tokenClaims(this.token ?? '').mfa_enrollment === true });
  }

  /**
   * Ends the session on the server (every token of the user), then here. A failure (the network gone) leaves the
   * console signed in and throws: ending it here only would leave the cookie, and a reload would sign in again.
   */
  async signOut(): Promise<void> {
    const end = () => call(this.plain.DELETE('/v1/auth/console-session', { headers: { authorization: `Bearer ${this.token}` } }));
    const refused = (error: unknown) => error instanceof ApiFailure && error.failure.kind === 'problem' && error.failure.problem.status === 401;
    try {
      if (this.token) await end();
    } catch (error) {
      if (!refused(error)) throw error;
      // The access token was refused (expired, or revoked a moment ago) while the cookie may still renew: ending
      // only here would leave it for a reload. Renew once and end the session with the new token; a cookie that
      // no longer renews means the session is over already (renew() then ends it here).
      if (!(await this.renew())) return;
      try {
        await end();
      } catch (again) {
        if (!refused(again)) throw again;
      }
    }
    this.endLocally();
  }

  /** The API said the session is gone (a 401 the renewal could not mend). */
  endLocally(notice?: string): void {
    this.token = null;
    this.set({ status: 'signed-out', ...(notice ? { notice } : {}) });
  }

  private set(state: SessionState): void {
    this.state = state;
    for (const listener of this.listeners) listener(state);
  }

  private async request<T>(send: () => Promise<T>): Promise<T> {
    try {
      return await send();
    } catch {
      throw new ApiFailure({ kind: 'network' } satisfies Failure);
    }
  }

  private exclusively<T>(work: () => Promise<T>): Promise<T> {
    const locks = typeof navigator !== 'undefined' ? navigator.locks : undefined;
    return locks ? (locks.request('access-control-console-session', work) as Promise<T>) : work();
  }
}

