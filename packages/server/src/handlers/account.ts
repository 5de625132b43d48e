import type * as api from '@portico/api';
import { handler } from './types.js';

/** §5: the caller and its permissions (both forms). */
export const accountHandlers = {
  getAccount: handler(({ portico, actor }) => portico.access.accountInfo(actor)),
  getAccountInfo: handler(({ portico, actor }) => portico.access.accountInfo(actor)),
  canISummary: handler(({ portico, actor }) => portico.access.canISummary(actor)),
  canI: handler<{ params: api.CanIParams }>(({ portico, actor, params }) => portico.access.canI(actor, params)),
};
