import type { FastifyInstance } from 'fastify';
import { ValidationError } from '../../domain/shared/domain-error';
import { utf8Text } from './json-body';

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
  app.addContentTypeParser(FORM_MEDIA, { parseAs: 'buffer' }, (_request, bytes, done) => {
    const body = utf8Text(bytes as Buffer);
    if (body === undefined || utf8Text(percentDecoded(body)) === undefined) {
      done(new ValidationError([{ field: 'body', message: NOT_UTF8 }]), undefined);
      return;
    }
    done(null, parseFormBody(body, options));
  });
}

const NOT_UTF8 = 'must be UTF-8 text, its percent-encoded bytes (%FF) included';

/**
 * A form's bytes with each `%XX` made the byte it stands for: URLSearchParams decodes them as UTF-8 and turns a bad one
 * into U+FFFD in silence, so they are checked first (a `%` not followed by two hex digits is kept, as it keeps it).
 */
function percentDecoded(text: string): Uint8Array {
  const parts = text.split(/(%[0-9A-Fa-f]{2})/);
  return Buffer.concat(parts.map((part, i) => (i % 2 === 1 ? Buffer.from([parseInt(part.slice(1), 16)]) : Buffer.from(part, 'utf8'))));
}
