'use strict';
// Local stand-in for axllent/mailpit where no image registry can be reached: an SMTP server on
// 1025 that keeps every mail in memory, and the parts of Mailpit's HTTP API on 8025 that tests
// read (GET /api/v1/messages, /api/v1/message/{ID}, /api/v1/message/{ID}/raw, DELETE
// /api/v1/messages, /livez, /readyz). `mailpit readyz` is the health check, as in Mailpit.
const http = require('node:http');
const { randomUUID } = require('node:crypto');
const { SMTPServer } = require('smtp-server');
const { simpleParser } = require('mailparser');

const HTTP_PORT = Number(process.env.MP_UI_BIND_PORT || 8025);
const SMTP_PORT = Number(process.env.MP_SMTP_BIND_PORT || 1025);

if (process.argv[2] === 'readyz') {
  http
    .get({ host: '127.0.0.1', port: HTTP_PORT, path: '/readyz', timeout: 2000 }, (res) => process.exit(res.statusCode === 200 ? 0 : 1))
    .on('error', () => process.exit(1));
  return;
}

const messages = [];
const address = (list) => (list ? list.value.map((a) => ({ Name: a.name || '', Address: a.address || '' })) : []);

const smtp = new SMTPServer({
  authOptional: true,
  disabledCommands: ['STARTTLS'],
  size: 10 * 1024 * 1024,
  onData(stream, session, callback) {
    const chunks = [];
    stream.on('data', (c) => chunks.push(c));
    stream.on('end', async () => {
      try {
        const raw = Buffer.concat(chunks);
        const parsed = await simpleParser(raw);
        messages.unshift({
          ID: randomUUID(),
          MessageID: parsed.messageId || '',
          From: address(parsed.from)[0] || { Name: '', Address: session.envelope.mailFrom ? session.envelope.mailFrom.address : '' },
          To: address(parsed.to),
          Subject: parsed.subject || '',
          Created: new Date().toISOString(),
          Size: raw.length,
          Text: parsed.text || '',
          HTML: parsed.html || '',
          raw,
        });
        callback();
      } catch (error) {
        callback(error);
      }
    });
  },
});

const summary = ({ raw, Text, HTML, ...rest }) => rest;
const send = (res, status, body, type = 'application/json') => {
  res.writeHead(status, { 'content-type': type });
  res.end(type === 'application/json' ? JSON.stringify(body) : body);
};

const api = http.createServer((req, res) => {
  const url = new URL(req.url, 'http://mailpit');
  const one = /^\/api\/v1\/message\/([^/]+)(\/raw)?$/.exec(url.pathname);
  if (url.pathname === '/livez' || url.pathname === '/readyz') return send(res, 200, 'ok', 'text/plain');
  if (url.pathname === '/api/v1/messages' && req.method === 'GET') {
    return send(res, 200, { total: messages.length, count: messages.length, messages: messages.map(summary) });
  }
  if (url.pathname === '/api/v1/messages' && req.method === 'DELETE') {
    messages.length = 0;
    return send(res, 200, 'ok', 'text/plain');
  }
  if (one) {
    const found = messages.find((m) => m.ID === one[1]);
    if (!found) return send(res, 404, 'message not found', 'text/plain');
    if (one[2]) return send(res, 200, found.raw, 'message/rfc822');
    const { raw, ...body } = found;
    return send(res, 200, body);
  }
  return send(res, 404, 'not found', 'text/plain');
});

smtp.listen(SMTP_PORT, '0.0.0.0', () => {
  api.listen(HTTP_PORT, '0.0.0.0', () => console.log(`mailpit stand-in: SMTP on ${SMTP_PORT}, HTTP on ${HTTP_PORT}`));
});
const stop = () => {
  api.close();
  smtp.close(() => process.exit(0));
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
