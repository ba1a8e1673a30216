import type { FastifyInstance } from 'fastify';
import { ValidationError } from '../../domain/shared/domain-error';
import { HttpProblemError } from './problem';

/**
 * JSON bodies as fastify's own parser reads them (a `__proto__` or `constructor.prototype` key refused), except an
 * empty one, which is no body: many clients set `Content-Type: application/json` on every request, a DELETE or a
 * POST that takes nothing included, and that was a 400 MALFORMED_JSON. A route that needs a body then says so
 * through its schema (400 VALIDATION_FAILED naming `body`). A refused key is said as such (400 VALIDATION_FAILED
 * naming it): fastify's parser calls it invalid JSON, which it is not. Bytes that are not UTF-8 are 400 MALFORMED_JSON.
 */
export function readJsonBodies(app: FastifyInstance): void {
  const parse = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, bytes, done) => {
    const body = utf8Text(bytes as Buffer);
    if (body === undefined) {
      done(new HttpProblemError('MALFORMED_JSON', 'The body is not UTF-8 text: JSON is (RFC 8259 §8.1)'), undefined);
      return;
    }
    if (body === '') {
      done(null, undefined);
      return;
    }
    parse(request, body, (error, value) => {
      const key = error ? forbiddenKeyIn(body) : undefined;
      done(key ? new ValidationError([{ field: key, message: FORBIDDEN_KEY }]) : error, value);
    });
  });
}

const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true });

/**
 * The bytes as UTF-8 text, or undefined when they are not UTF-8: a lenient decoder turns each bad byte into U+FFFD,
 * and that text was then stored as if the client had sent it.
 */
export function utf8Text(bytes: Uint8Array): string | undefined {
  try {
    return STRICT_UTF8.decode(bytes);
  } catch {
    return undefined;
  }
}

const FORBIDDEN_KEY = 'is not accepted: a key that could change an object’s prototype (__proto__, constructor.prototype)';

/**
 * A key of valid JSON that fastify's parser refuses, as a dotted path (`extra.0.__proto__`); undefined when the text
 * is not JSON or holds none. Walked without recursion, each node linked to its parent: a body may nest thousands deep.
 */
export function forbiddenKeyIn(text: string): string | undefined {
  let root: unknown;
  try {
    root = JSON.parse(text);
  } catch {
    return undefined;
  }
  interface Node { value: unknown; key?: string; parent?: Node }
  const pathOf = (node: Node, ...rest: string[]): string => {
    const keys = rest;
    for (let at: Node | undefined = node; at?.key !== undefined; at = at.parent) keys.unshift(at.key);
    return keys.join('.');
  };
  const pending: Node[] = [{ value: root }];
  for (let node = pending.pop(); node; node = pending.pop()) {
    if (typeof node.value !== 'object' || node.value === null) continue;
    for (const [key, inner] of Object.entries(node.value)) {
      const child: Node = { value: inner, key, parent: node };
      if (key === '__proto__') return pathOf(child);
      if (key === 'constructor' && typeof inner === 'object' && inner !== null && Object.hasOwn(inner, 'prototype')) return pathOf(child, 'prototype');
      pending.push(child);
    }
  }
  return undefined;
}
