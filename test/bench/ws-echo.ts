// A bare `ws` server in its own process, for the bench's transport references:
// what a JSON-RPC-shaped round trip between two Node processes costs on this
// machine with no evidex code on either side. Prints its port, then answers:
// - `load` `{answers: string[]}`: keeps these answer texts (JSON of results), answers `true`;
// - `replay` `{k}`: answers with the k-th loaded text as its result, already
//   serialised, so only the transport and the client's parse are left (an
//   error when there is no k-th text);
// - anything else: `{ok: true}` (the echo).
import { WebSocketServer } from 'ws';

let answers: string[] = [];
const wss = new WebSocketServer({ port: 0, host: '127.0.0.1', perMessageDeflate: false, maxPayload: 1 << 30 });
wss.on('listening', () => console.log((wss.address() as { port: number }).port));
wss.on('connection', (ws) => ws.on('message', (data) => {
  const msg = JSON.parse(String(data)) as { id: number; method: string; params: { answers?: string[]; k?: number } };
  if (msg.method === 'load') answers = msg.params.answers ?? [];
  const result = msg.method === 'replay' ? answers[msg.params.k ?? -1] : msg.method === 'load' ? 'true' : '{"ok":true}';
  if (result === undefined) ws.send(JSON.stringify({ jsonrpc: '2.0', id: msg.id, error: { code: -32602, message: `no loaded answer ${msg.params.k}` } }));
  else ws.send(`{"jsonrpc":"2.0","id":${msg.id},"result":${result}}`);
}));
