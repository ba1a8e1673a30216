import { randomUUID } from 'node:crypto';
import { type IncomingMessage, type Server, type ServerResponse, STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { type Problem, problem } from './problem';

/** A client's x-request-id is kept when it is a sane token; otherwise one is minted. */
export const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** What Node's HTTP parser refuses, before fastify has a request: the code of the answer, by the parser's error. */
const PARSER_ERRORS: Record<string, string> = {
  HPE_HEADER_OVERFLOW: 'HEADERS_TOO_LARGE',
  ERR_HTTP_REQUEST_TIMEOUT: 'REQUEST_TIMEOUT',
};

/** Sockets whose refused request is being answered: more input, or its end, makes the parser raise its error again. */
const answering = new WeakSet<Socket>();

/**
 * Node's parser refused the request (a head over MAX_HEADER_SIZE, a malformed request line, a timeout):
 * there is no request for fastify to answer, so the answer is written on the socket here, in the
 * same problem+json shape as every other error, with a request id, and the connection closed. Requests
 * pipelined before it are answered first, in order (RFC 9112 §9.3.2): the problem waits for their answers.
 */
export function answerClientError(error: Error & { code?: string }, socket: Socket): void {
  // A reset or a write after the client left: nothing can be answered.
  if (error.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy(error);
    return;
  }
  if (answering.has(socket)) {
    // Node found the refused request unfinished past HEADERS_TIMEOUT (REQUEST_TIMEOUT once its head was read): the
    // answers before it took that long, and are not waited for any longer.
    if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') socket.destroy(error);
    return;
  }
  answering.add(socket);
  // Nothing is read while the earlier answers are written: the end of the client's input would make Node close the
  // connection before them. Once answered it is read again (and dropped), so the client's close is seen.
  socket.pause();
  const body = problem(PARSER_ERRORS[error.code ?? ''] ?? 'MALFORMED_REQUEST', 'The request could not be read', {});
  afterEarlierAnswers(socket, () => {
    socket.resume();
    // An earlier answer with `Connection: close` ended the connection, or the client left meanwhile.
    if (socket.writable) endWithProblem(socket, body);
    else socket.destroy();
  });
}

/** Per socket, the answers begun and not yet closed: pipelined requests queue theirs. */
const unfinished = new WeakMap<Socket, Set<ServerResponse>>();

/** The server's first `request` listener (before fastify's, which may answer at once), that lets a refused request wait for the answers before it (answerClientError). */
export function trackAnswer(request: IncomingMessage, response: ServerResponse): void {
  const socket = request.socket;
  let answers = unfinished.get(socket);
  if (!answers) unfinished.set(socket, (answers = new Set()));
  answers.add(response);
  // 'close' comes after 'finish' too; an answer finished and not yet closed is passed over.
  response.once('close', () => answers.delete(response));
}

/** Calls `then` once no answer to an earlier request, one read whole, on the socket is being written or waits to be. */
function afterEarlierAnswers(socket: Socket, then: () => void): void {
  // The socket is paused, so no request comes after the refused one: the answers to wait for are those begun. One whose
  // request is not read whole is to the refused request itself (its body came too slowly, or malformed): the problem
  // is its answer, and nothing else would end it. A socket closed first never calls `then`.
  const earlier = [...(unfinished.get(socket) ?? [])].find((answer) => answer.req.complete && !answer.writableFinished);
  if (!earlier) then();
  else earlier.once('finish', () => process.nextTick(afterEarlierAnswers, socket, then));
}

/** Writes `body` on the socket as a whole HTTP/1.1 answer (and `headers`), then closes it. */
function endWithProblem(socket: Duplex, body: Problem, headers = ''): void {
  const text = JSON.stringify(body);
  socket.end(
    `HTTP/1.1 ${body.status} ${STATUS_CODES[body.status]}\r\n` +
      'Content-Type: application/problem+json; charset=utf-8\r\n' +
      `Content-Length: ${Buffer.byteLength(text)}\r\n` +
      `x-request-id: ${randomUUID()}\r\n` +
      headers +
      'Connection: close\r\n\r\n' +
      text,
  );
}

/**
 * A CONNECT (a tunnel through a proxy, which this is not): Node closes the socket without a word unless the server
 * listens for it. No route takes the method, so 405 as README says, `Allow` empty (the authority form names no
 * resource), and the connection closed.
 */
export function answerConnect(_request: IncomingMessage, socket: Duplex): void {
  endWithProblem(socket, problem('METHOD_NOT_ALLOWED', 'CONNECT is not allowed: this is no proxy'), 'Allow: \r\n');
  socket.on('error', () => socket.destroy());
}

/**
 * An `Expect` header other than `100-continue`: Node answers 417 itself, in plain text, before
 * fastify sees the request. The same answer as problem+json with a request id; the body is not read.
 */
export function answerUnmetExpectation(request: IncomingMessage, response: ServerResponse): void {
  answerBeforeBody(request, response, problem('EXPECTATION_FAILED', 'Only the expectation 100-continue is supported'));
}

/**
 * `Expect: 100-continue` (curl sends it with a body over 1 KB): Node answers `100 Continue` to every such request unless
 * the server listens, and the client then sent a body that BODY_LIMIT refused (413) once it had arrived. A declared
 * length over the limit is answered 413 at once, so the body is never sent; any other request continues as usual.
 */
export function continueWithinLimit(server: Server, limit: number): (request: IncomingMessage, response: ServerResponse) => void {
  return (request, response) => {
    const length = Number(request.headers['content-length']);
    if (Number.isFinite(length) && length > limit) {
      answerBeforeBody(request, response, problem('PAYLOAD_TOO_LARGE', `The body is larger than BODY_LIMIT (${limit} bytes): it was not sent`));
      return;
    }
    response.writeContinue();
    server.emit('request', request, response);
  };
}

/** `body` as the whole answer, with the client's request id or a new one, before any of the request's body is read; the connection closed. */
function answerBeforeBody(request: IncomingMessage, response: ServerResponse, body: Problem): void {
  const given = request.headers['x-request-id'];
  response.writeHead(body.status, {
    'content-type': 'application/problem+json; charset=utf-8',
    'x-request-id': typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID(),
    connection: 'close',
  });
  response.end(JSON.stringify(body));
}
