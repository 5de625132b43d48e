import type { IncomingMessage, ServerResponse } from 'node:http';
import { openApiYaml } from '../openapi.js';
import { routeNotFound, sendError } from '../http/errors.js';
import { requestState } from '../http/request-state.js';
import { createAssetServer } from './assets.js';
import { explorerBase, explorerCsp, explorerHtml, specPath } from './page.js';

type Req = IncomingMessage & { path: string; params: Record<string, string> };
type Route = { method: 'GET'; path: string; polkaPath: string; handle: (req: Req, res: ServerResponse) => void };

/**
 * The API explorer (§10): the spec and Swagger UI. Registered only when `config.swaggerUi` is on, so off it
 * answers like any unknown path.
 */
export function explorerRoutes(): Route[] {
  const assets = createAssetServer();
  let spec: string | undefined;

  const sendText = (res: ServerResponse, type: string, text: string, headers: Record<string, string> = {}) => {
    res.statusCode = 200;
    for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
    res.setHeader('Content-Type', type);
    res.setHeader('Content-Length', Buffer.byteLength(text));
    res.end(text);
  };

  return [
    {
      method: 'GET',
      path: specPath,
      polkaPath: specPath,
      handle: (_req, res) => {
        spec ??= openApiYaml();
        sendText(res, 'application/yaml; charset=utf-8', spec, { 'Cache-Control': 'no-cache' });
      },
    },
    {
      method: 'GET',
      path: explorerBase,
      polkaPath: explorerBase,
      handle: (_req, res) =>
        sendText(res, 'text/html; charset=utf-8', explorerHtml, { 'Content-Security-Policy': explorerCsp, 'Cache-Control': 'no-cache' }),
    },
    {
      method: 'GET',
      path: `${explorerBase}/{file}`,
      polkaPath: `${explorerBase}/:file`,
      handle: (req, res) => {
        // Polka leaves the segment encoded unless it holds '%'; either way it is looked up verbatim in the list.
        if (assets.send(req.params.file, res)) return;
        const { requestId, log } = requestState(req);
        sendError(req, res, routeNotFound(req.path), requestId, log);
      },
    },
  ];
}
