/** What a refresh and a password change answer: the tokens of the session that continues. */
export function sessionTokensResponse(description: string) {
  return {
    description,
    type: 'object',
    required: ['accessToken', 'refreshToken'],
    additionalProperties: false,
    properties: {
      accessToken: { type: 'string', description: 'Bearer token (a JWT), as sign-in gives it' },
      refreshToken: {
        type: 'string',
        description: 'Opaque; exchanged once at POST /v1/auth/refresh for the next one. Keep it secret: a used one presented again ends the session',
      },
    },
  } as const;
}
