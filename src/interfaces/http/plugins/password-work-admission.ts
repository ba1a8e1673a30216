import { normalizeIP } from '@fastify/rate-limit';
import type { FastifyInstance, preHandlerHookHandler } from 'fastify';
import { AdmissionRefusedError, FairAdmission } from '../../../infrastructure/system/fair-admission';
import { HttpProblemError } from '../problem';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route checks or hashes a password (argon2id): it runs only with a slot of the password work's admission. */
    passwordWork?: boolean;
  }
}

/** Seconds a request waits for a slot before its 503; the same wait as a password reset's for room. */
export const PASSWORD_WORK_WAIT_SECONDS = 5;

/**
 * The routes that do a password's work (`config.passwordWork`) take turns per client address: at most four per hashing
 * thread run at once (the others read or write their rows while one hashes), and the rest wait in their address's line,
 * the lines served in turn (FairAdmission). So a burst from a few addresses, each within ADDRESS_RATE_LIMIT, delays
 * someone else's sign-in by a turn per address waiting instead of by the whole burst, and a request that finds no
 * slot within PASSWORD_WORK_WAIT_SECONDS is answered 503 (Retry-After) before any work, its sign-in not counted against
 * the account. Runs after the body is read and checked (a malformed request waits for nothing) and after the per-address
 * limit (onRequest), before the handler; the slot is given back when the answer is sent or the client goes.
 */
export function registerPasswordWorkAdmission(app: FastifyInstance, options: { hashingThreads: number; waitSeconds?: number }): FairAdmission {
  const waitSeconds = options.waitSeconds ?? PASSWORD_WORK_WAIT_SECONDS;
  const admission = new FairAdmission({ slots: Math.max(1, options.hashingThreads) * 4, waitMs: waitSeconds * 1000 });
  const admit: preHandlerHookHandler = async (request, reply) => {
    let release: () => void;
    try {
      release = await admission.admit(normalizeIP(request.ip));
    } catch (error) {
      if (!(error instanceof AdmissionRefusedError)) throw error;
      throw new HttpProblemError('SERVICE_UNAVAILABLE', `Too many password checks are waiting; retry after ${waitSeconds} seconds`, {
        'retry-after': String(waitSeconds),
      });
    }
    // 'close' comes once the answer is written, or when the client went away first: either way the slot is free.
    reply.raw.once('close', release);
    if (reply.raw.destroyed) release();
  };
  app.addHook('onRoute', (route) => {
    if (!route.config?.passwordWork) return;
    const existing = route.preHandler;
    route.preHandler = [...(Array.isArray(existing) ? existing : existing ? [existing] : []), admit] as typeof existing;
  });
  return admission;
}
