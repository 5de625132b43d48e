import type * as api from '@portico/api';
import { routeHandlers } from './types.js';

/** §5: the caller and its permissions (both forms). */
export const accountHandlers = routeHandlers({
  getAccount: ({ portico, actor }) => portico.access.accountInfo(actor),
  getAccountInfo: ({ portico, actor }) => portico.access.accountInfo(actor),
  canISummary: ({ portico, actor }) => portico.access.canISummary(actor),
  canI: ({ portico, actor, params }) => portico.access.canI(actor, params),
});
