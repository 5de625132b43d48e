// The yardstick of a list endpoint: a plain node:http server answering exactly the bytes (and content type) Portico
// answered for it, measured in the same run. Child process; gets the body over IPC, answers its port.
import http from 'node:http';

let body = Buffer.alloc(0);
const server = http.createServer((req, res) => {
  res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': body.length, 'cache-control': 'no-store' });
  res.end(body);
});
process.on('message', (m) => {
  if (m === 'stop') server.close(() => process.exit(0));
  else if (m && m.body !== undefined) {
    body = Buffer.from(m.body, 'base64');
    process.send({ id: m.id, result: true });
  }
});
server.listen(0, '127.0.0.1', () => process.send({ port: server.address().port }));
