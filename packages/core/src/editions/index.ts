export type { PorticoPlugin } from './plugin.js';
