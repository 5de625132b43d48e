export { createSecrets, secretAnnotations, secretLabels } from './secrets.js';
