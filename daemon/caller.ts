// Who sent a request, as every handler sees it: a connected client, or the
// daemon itself during its request-path warm-up (warmup.ts). The warm-up sends
// its calls through the same dispatch as a client's so it exercises the same
// code, but it is no client: its notifications go nowhere and its tool calls
// are not audited.
import type { Notify } from '../protocol/messages.js';
import type { Conversation } from './ask/loop.js';

export interface Caller {
  /** The daemon's id for the connection (`c1`, `c2`, ...), for its log. */
  id: string;
  /** What the client calls itself (X-Evidex-Client), for the audit log. */
  name: string;
  /** Sends it a notification (protocol/messages.ts Notifications), typed by its definition. */
  notify: Notify;
  /** Its `evidex chat` conversations, gone with the connection (the warm-up has none). */
  conversations?: Map<string, Conversation>;
}

/** The warm-up's caller: compared by identity where the warm-up must not count as a client. */
export const WARMUP_CALLER: Caller = { id: 'warm-up', name: 'warm-up', notify: () => undefined };
