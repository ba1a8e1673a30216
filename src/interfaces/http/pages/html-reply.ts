import type { FastifyReply } from 'fastify';
import { PAGE_CSP } from './page-layout';

/** A rendered page and the status it is answered with. */
export interface Page {
  status: number;
  html: string;
}

/** An HTML answer in a route's OpenAPI responses. */
export const htmlResponse = (description: string) => ({ description, content: { 'text/html': { schema: { type: 'string' } } } });

/** A urlencoded form as fastify parses it: a field posted twice is a list. */
export type FormBody = Record<string, string | string[] | undefined>;

/** A text field as it was posted; a field given twice (a list) or missing is empty. */
export function formField(body: FormBody | undefined, name: string): string {
  const value = body?.[name];
  return typeof value === 'string' ? value : '';
}

/** A page of a single-use link (or one's account): never cached, the link's token never sent on as a referrer, PAGE_CSP. */
export function sendPage(reply: FastifyReply, page: Page): FastifyReply {
  return reply
    .code(page.status)
    .header('content-security-policy', PAGE_CSP)
    .header('cache-control', 'no-store')
    .header('referrer-policy', 'no-referrer')
    .type('text/html; charset=utf-8')
    .send(page.html);
}
