import { readFile } from 'node:fs/promises';
import type { SecretStore } from '../secrets.js';
import type { ClientSecretSource } from './settings.js';

/**
 * The client secret, read where the settings say at every use (a rotated file or Secret applies at once).
 * `undefined` means a public client: the code exchange then relies on PKCE alone.
 */
export async function readClientSecret(source: ClientSecretSource, secrets: SecretStore): Promise<string | undefined> {
  switch (source.from) {
    case 'value':
      return source.value;
    case 'file':
      return (await readFile(source.path, 'utf8')).trim() || undefined;
    case 'secret': {
      const data = await secrets.read(source.secret);
      const value = data?.[source.key]?.toString('utf8').trim();
      return value || undefined;
    }
  }
}
