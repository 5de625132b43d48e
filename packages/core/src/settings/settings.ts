import type { Settings } from '@portico/api';
import type { PorticoConfig } from '../config.js';
import type { SettingsService } from '../types.js';

/** What a console shows about this installation; read from configuration once (a bad value stopped the start). */
export function createSettings(config: Pick<PorticoConfig, 'organization'>): SettingsService {
  const settings: Settings = Object.freeze({ organization: config.organization });
  return { get: () => settings };
}
