import net from 'node:net';

export interface RawRequest {
  method?: string;
  /** Sent byte for byte: no normalisation of `..`, no percent-encoding. */
  path: string;
  headers?: Record<string, string>;
  /** Header lines sent exactly as given (for names or values no client library would send). */
  rawHeaderLines?: string[];
  body?: string | Buffer;
  /** Send the body with Transfer-Encoding: chunked (no Content-Length), in pieces of this many bytes. */
  chunked?: number;
}

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** The parsed JSON body, when there is one. */
  json?: any;
}

function decodeChunked(data: Buffer): Buffer {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const eol = data.indexOf('\r\n', at);
    if (eol < 0) break;
    const size = parseInt(data.subarray(at, eol).toString('latin1'), 16);
    if (!size) break;
    parts.push(data.subarray(eol + 2, eol + 2 + size));
    at = eol + 2 + size + 2;
  }
  return Buffer.concat(parts);
}

function parseResponse(data: Buffer): RawResponse {
  const end = data.indexOf('\r\n\r\n');
  if (end < 0) throw new Error(`incomplete response: ${JSON.stringify(data.toString('latin1').slice(0, 200))}`);
  const [statusLine, ...lines] = data.subarray(0, end).toString('latin1').split('\r\n');
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1]);
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const i = line.indexOf(':');
    const name = line.slice(0, i).trim().toLowerCase();
    headers[name] = headers[name] !== undefined ? `${headers[name]}, ${line.slice(i + 1).trim()}` : line.slice(i + 1).trim();
  }
  let body = data.subarray(end + 4);
  if (headers['transfer-encoding']?.toLowerCase() === 'chunked') body = decodeChunked(body);
  else if (headers['content-length'] !== undefined) body = body.subarray(0, Number(headers['content-length']));
  const text = body.toString('utf8');
  let json: unknown;
  if ((headers['content-type'] ?? '').startsWith('application/json') && text) {
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
  }
  return { status, headers, body: text, json };
}

/**
 * One HTTP/1.1 exchange over a fresh TCP connection, written by hand so that requests no well-behaved client
 * would send (raw `..`, NUL, CR/LF, invalid UTF-8, oversized headers, chunked uploads) reach the server as
 * they are. The connection is closed after the answer.
 */
export function rawRequest(port: number, req: RawRequest, timeoutMs = 15_000): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    const received: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no answer within ${timeoutMs} ms`));
    }, timeoutMs);
    const body = req.body === undefined ? undefined : Buffer.isBuffer(req.body) ? req.body : Buffer.from(req.body, 'utf8');
    const headers: Record<string, string> = { host: `127.0.0.1:${port}`, connection: 'close', ...req.headers };
    if (body && !req.chunked && headers['content-length'] === undefined) headers['content-length'] = String(body.length);
    if (body && req.chunked) headers['transfer-encoding'] = 'chunked';
    const head = [`${req.method ?? 'GET'} ${req.path} HTTP/1.1`, ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`), ...(req.rawHeaderLines ?? [])];

    socket.on('connect', () => {
      socket.write(Buffer.from(`${head.join('\r\n')}\r\n\r\n`, 'latin1'));
      if (body && req.chunked) {
        for (let at = 0; at < body.length; at += req.chunked) {
          const piece = body.subarray(at, at + req.chunked);
          socket.write(`${piece.length.toString(16)}\r\n`);
          socket.write(piece);
          socket.write('\r\n');
        }
        socket.write('0\r\n\r\n');
      } else if (body) socket.write(body);
    });
    socket.on('data', (chunk: Buffer) => received.push(chunk));
    // The server may answer and close before the whole upload was written: that is an answer, not a failure.
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(timer);
      const data = Buffer.concat(received);
      if (data.length === 0) {
        reject(new Error('connection closed without an answer'));
        return;
      }
      try {
        resolve(parseResponse(data));
      } catch (e) {
        reject(e);
      }
    });
  });
}
