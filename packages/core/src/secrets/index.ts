export { createSecrets } from './secrets.js';
