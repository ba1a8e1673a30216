import type { FastifyInstance } from 'fastify';

export const FORM_MEDIA = 'application/x-www-form-urlencoded';

interface FormOptions {
  /** A field without a value is left out, as if not sent (OAuth's: RFC 6749 §3.1); an HTML form's empty field is a value. */
  omitEmpty?: boolean;
}

/**
 * An HTML form's body as an object: a field given twice becomes a list, which a string field's
 * schema then refuses (never "the last one wins" in silence). Object.fromEntries defines own
 * properties, so a field named `__proto__` is a field, not a prototype; the schema refuses it.
 */
export function parseFormBody(text: string, options: FormOptions = {}): Record<string, string | string[]> {
  const fields = new Map<string, string | string[]>();
  for (const [key, value] of new URLSearchParams(text)) {
    if (options.omitEmpty && value === '') continue;
    const before = fields.get(key);
    fields.set(key, before === undefined ? value : [...(Array.isArray(before) ? before : [before]), value]);
  }
  return Object.fromEntries(fields);
}

/**
 * In the calling plugin's scope only: form bodies are read, and nothing else (a JSON body there is
 * 415). The JSON routes live in other scopes and keep answering 415 to a form body.
 */
export function readFormBodiesOnly(app: FastifyInstance, options: FormOptions = {}): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(FORM_MEDIA, { parseAs: 'string' }, (_request, body, done) => {
    done(null, parseFormBody(body as string, options));
  });
}
