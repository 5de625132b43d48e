import { createHash } from 'node:crypto';

export const explorerBase = '/swagger';
export const specPath = `${explorerBase}/openapi.yaml`;

/**
 * The init script is inline and allowed by its hash, so the page's CSP needs no 'unsafe-inline' for
 * scripts. `persistAuthorization` keeps the bearer token entered under "Authorize" across reloads.
 */
const initScript = `window.onload = function () {
  window.ui = SwaggerUIBundle({
    url: ${JSON.stringify(specPath)},
    dom_id: '#swagger-ui',
    deepLinking: true,
    persistAuthorization: true,
    presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
    layout: 'StandaloneLayout'
  });
};`;

const scriptHash = createHash('sha256').update(initScript, 'utf8').digest('base64');

/** Swagger UI sets inline styles and data: images; everything else stays same-origin and unframeable. */
export const explorerCsp = [
  "default-src 'self'",
  `script-src 'self' 'sha256-${scriptHash}'`,
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "frame-ancestors 'none'",
].join('; ');

export const explorerHtml = `<!DOCTYPE html>
<html lang="en">
  <head>
    <meta charset="UTF-8">
    <title>Portico API explorer</title>
    <link rel="stylesheet" type="text/css" href="${explorerBase}/swagger-ui.css">
    <link rel="icon" type="image/png" href="${explorerBase}/favicon-32x32.png" sizes="32x32">
  </head>
  <body>
    <div id="swagger-ui"></div>
    <script src="${explorerBase}/swagger-ui-bundle.js" charset="UTF-8"></script>
    <script src="${explorerBase}/swagger-ui-standalone-preset.js" charset="UTF-8"></script>
    <script>${initScript}</script>
  </body>
</html>
`;
