import fastifyJwt from '@fastify/jwt';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { Actor } from '../../../application/auth/actor';
import type { SigningKey } from '../../../infrastructure/crypto/signing-keys';
import { unauthenticated } from '../problem';

declare module 'fastify' {
  interface FastifyRequest {
    actor?: Actor;
  }
  interface FastifyInstance {
    authenticate(request: FastifyRequest): Promise<Actor>;
  }
  interface FastifyContextConfig {
    /** A /v1 route that needs no bearer token. */
    public?: boolean;
  }
}

export interface AuthenticationOptions {
  signingKey: SigningKey;
  issuer: string;
  audience: string;
  resolveActor(subject: string): Promise<Actor | null>;
}

const BEARER = /^Bearer +([A-Za-z0-9\-_]+\.[A-Za-z0-9\-_]+\.[A-Za-z0-9\-_]*)\s*$/i;

/**
 * Bearer authentication: the token must be an EdDSA JWT we signed, for our issuer and audience,
 * unexpired, with every registered claim present; then its subject must still be a joined user.
 * Every failure, whatever its cause, is the same 401.
 */
async function authentication(app: FastifyInstance, options: AuthenticationOptions): Promise<void> {
  await app.register(fastifyJwt, {
    secret: { public: options.signingKey.publicKeyPem, private: options.signingKey.privateKeyPem },
    verify: {
      algorithms: ['EdDSA'],
      allowedIss: options.issuer,
      allowedAud: options.audience,
      requiredClaims: ['iss', 'aud', 'sub', 'iat', 'exp'],
      cache: 10_000,
    },
  });

  app.decorate('authenticate', async (request: FastifyRequest): Promise<Actor> => {
    if (request.actor) return request.actor;
    const header = request.headers.authorization;
    if (!header || !BEARER.test(header)) throw unauthenticated();
    let subject: string;
    try {
      const claims = await request.jwtVerify<{ sub?: unknown }>();
      if (typeof claims.sub !== 'string' || claims.sub.length === 0) throw new Error('no subject');
      subject = claims.sub;
    } catch {
      throw unauthenticated();
    }
    const actor = await options.resolveActor(subject);
    if (!actor) throw unauthenticated();
    request.actor = actor;
    return actor;
  });
}

export default fp(authentication, { name: 'authentication' });
