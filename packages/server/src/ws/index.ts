export { attachWebSocket, type WebSocketOptions, type WebSocketHandle } from './attach.js';
