/** Where the current request came from: read by the audit, set by the driving adapter (HTTP) for the life of a request. */
export interface Origin {
  readonly requestId: string | null;
  /** The client's address as the proxy settings resolve it. */
  readonly address: string | null;
  readonly userAgent: string | null;
}

export interface RequestOrigin {
  /** The current request's origin; all null outside a request (the CLI, a worker). */
  current(): Origin;
}
