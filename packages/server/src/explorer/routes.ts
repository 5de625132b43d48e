import type { ServerResponse } from 'node:http';
import type { RouterEntry } from '../http/router.js';
import { openApiYaml } from '../openapi.js';
import { routeNotFound, sendError } from '../http/errors.js';
import { requestState } from '../http/request-state.js';
import { createAssetServer } from './assets.js';
import { explorerBase, explorerCsp, explorerHtml, specPath } from './page.js';


/**
 * The API explorer (§10): the spec and Swagger UI. Registered only when `config.swaggerUi` is on, so off it
 * answers like any unknown path.
 */
export function explorerRoutes(document: () => string = () => openApiYaml()): RouterEntry[] {
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
      endpoint: (_req, res) => {
        spec ??= document();
        sendText(res, 'application/yaml; charset=utf-8', spec, { 'Cache-Control': 'no-cache' });
      },
    },
    {
      method: 'GET',
      path: explorerBase,
      endpoint: (_req, res) =>
        sendText(res, 'text/html; charset=utf-8', explorerHtml, { 'Content-Security-Policy': explorerCsp, 'Cache-Control': 'no-cache' }),
    },
    {
      method: 'GET',
      path: `${explorerBase}/{file}`,
      endpoint: (req, res, params) => {
        // The segment as it came (still encoded), looked up verbatim in the list of asset names.
        if (assets.send(params.file ?? '', res)) return;
        const { requestId, log } = requestState(req);
        sendError(req, res, routeNotFound(req.path), requestId, log);
      },
    },
  ];
}
