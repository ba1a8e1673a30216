import { InvalidTargetError } from './service-token.errors';

export interface TokenAudienceSettings {
  /** This service's issuer (`iss`): a `resource` naming it asks for this service's own audience. */
  issuer: string;
  /** This service's own audience (JWT_AUDIENCE): what every token carries unless a listed resource is asked for. */
  audience: string;
  /** RESOURCE_SERVERS: the other services a service account may ask a token for. */
  resources: readonly string[];
}

/** RFC 8707 §2: one resource per token, at most this long (more than any URI a deployment names). */
export const MAX_RESOURCE_LENGTH = 2048;

/**
 * Resource indicators (RFC 8707): the `aud` of a token asked for with `resource`. Without one, or naming this
 * service's issuer (with or without a trailing slash), a token is for this service (JWT_AUDIENCE), as always. A
 * service account may name one of RESOURCE_SERVERS instead, exactly as listed: its token's `aud` is that URI,
 * which this service's API refuses, and which a resource server checks is its own. A token so restricted cannot be
 * replayed here, nor at another resource server, by the service it was sent to. A user's token (a refresh) is
 * for this service alone.
 */
export class TokenAudiences {
  private readonly ownResource: string;
  private readonly resources: ReadonlySet<string>;

  constructor(private readonly settings: TokenAudienceSettings) {
    this.ownResource = withoutTrailingSlash(settings.issuer);
    this.resources = new Set(settings.resources);
  }

  /** A service account's token's `aud` for `resource` (absent: this service's); InvalidTargetError when it names none of them. */
  forService(resource: string | undefined): string {
    if (resource === undefined || this.isOwn(resource)) return this.settings.audience;
    if (this.resources.has(resource)) return resource;
    throw new InvalidTargetError();
  }

  /** A user's token's `aud`: this service's, and a `resource` may only name this service. */
  forUser(resource: string | undefined): string {
    if (resource === undefined || this.isOwn(resource)) return this.settings.audience;
    throw new InvalidTargetError("A user's tokens are for this service alone: resource may only name its issuer");
  }

  private isOwn(resource: string): boolean {
    return resource.length <= MAX_RESOURCE_LENGTH && withoutTrailingSlash(resource) === this.ownResource;
  }
}

const withoutTrailingSlash = (uri: string) => uri.replace(/\/+$/, '');
