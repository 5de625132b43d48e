// The plain node:http hello-world every benchmark measures in the same run, as the yardstick for its numbers.
import http from 'node:http';

const server = http.createServer((req, res) => {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end('{"hello":"world"}');
});
server.listen(0, '127.0.0.1', () => {
  process.send?.({ port: server.address().port });
});
process.on('message', (m) => {
  if (m === 'stop') server.close(() => process.exit(0));
});
