/// <reference path="../types/swagger-ui-dist.d.ts" />
import { createReadStream, readdirSync, type Dirent } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { join } from 'node:path';
import getAbsoluteFSPath from 'swagger-ui-dist/absolute-path.js';

const contentTypes: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.png': 'image/png',
  '.map': 'application/json; charset=utf-8',
};

const extensionOf = (name: string) => name.slice(name.lastIndexOf('.'));

/**
 * Swagger UI's static files. A request names a file; only names listed when the server started (regular
 * files directly in the package folder, with a known type) are served, so no path — `..`, encoded slashes,
 * absolute paths, symlinks elsewhere — can reach anything else.
 */
export function createAssetServer(dir: string = getAbsoluteFSPath()) {
  let entries: Dirent[] = [];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    // Without the package the explorer page still loads, just without its assets.
  }
  const files = new Map(
    entries
      .filter((e) => e.isFile() && /^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(e.name) && extensionOf(e.name) in contentTypes)
      .map((e) => [e.name, join(dir, e.name)]),
  );
  return {
    has: (name: string) => files.has(name),
    /** Streams the file; false when the name is not one of the listed assets. */
    send(name: string, res: ServerResponse): boolean {
      const path = files.get(name);
      if (!path) return false;
      res.statusCode = 200;
      res.setHeader('Content-Type', contentTypes[extensionOf(name)]);
      res.setHeader('Cache-Control', 'public, max-age=3600');
      const stream = createReadStream(path);
      stream.on('error', () => res.destroy());
      stream.pipe(res);
      return true;
    },
  };
}
