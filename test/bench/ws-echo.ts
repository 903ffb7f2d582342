// A bare `ws` echo server in its own process, for the bench's transport floor:
// what a JSON-RPC-shaped round trip between two Node processes costs on this
// machine with no evidex code on either side. Prints its port, then echoes.
import { WebSocketServer } from 'ws';

const wss = new WebSocketServer({ port: 0, host: '127.0.0.1', perMessageDeflate: false });
wss.on('listening', () => console.log((wss.address() as { port: number }).port));
wss.on('connection', (ws) => ws.on('message', (data) => {
  const msg = JSON.parse(String(data)) as { id: number };
  ws.send(JSON.stringify({ jsonrpc: '2.0', id: msg.id, result: { ok: true } }));
}));
