export { createServerMetrics, type ServerMetrics } from './registry.js';
export { listenForMetrics, type MetricsListener } from './listener.js';
