import { Readable } from 'node:stream';
import { routeHandlers } from './types.js';

/**
 * What an icon answer carries (§11.5): cacheable by anyone for a day, never sniffed as another type, and a CSP
 * under which even an SVG opened on its own runs nothing and loads nothing.
 */
const iconHeaders = {
  'Content-Type': 'image/svg+xml',
  'Cache-Control': 'public, max-age=86400',
  'X-Content-Type-Options': 'nosniff',
  'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'",
} as const;

/** §11.5 settings, preferences and icons; §11.7 cluster discovery. */
export const settingsHandlers = routeHandlers({
  getSettings: ({ portico }) => portico.settings.get(),
  getPreferences: ({ portico, actor }) => portico.preferences.get(actor),
  updatePreferences: ({ portico, actor, body }) => portico.preferences.update(actor, body),
  getIcon: ({ portico, params, reply }) => {
    const svg = Buffer.from(portico.icons.get(params.slug), 'utf8');
    for (const [name, value] of Object.entries(iconHeaders)) reply.setHeader(name, value);
    reply.setHeader('Content-Length', String(svg.length));
    // A stream, not JSON: the pipeline sends a Readable as it is, with these headers.
    return Readable.from([svg]);
  },
  apiResources: ({ portico, actor, query }) => portico.clusterDiscovery.apiResources(actor, query),
});
