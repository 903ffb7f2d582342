// A bare MCP-shaped peer in its own process, for the bench's transport floors:
// what a JSON-RPC round trip costs on each MCP transport between two Node
// processes with no evidex code on the server's side. Every request is
// answered `{"jsonrpc":"2.0","id":ID,"result":{}}`, every notification with
// nothing (HTTP 202).
//   node mcp-echo.js stdio   one message a line on stdin, one answer a line on stdout
//   node mcp-echo.js http    Node's own HTTP server on a free loopback port, printed on stdout
import { createServer } from 'node:http';
import { createInterface } from 'node:readline';

const answer = (text: string): string | null => {
  const m = JSON.parse(text) as { id?: number | string };
  return m.id === undefined ? null : `{"jsonrpc":"2.0","id":${JSON.stringify(m.id)},"result":{}}`;
};

if (process.argv[2] === 'http') {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = chunks.length ? answer(Buffer.concat(chunks).toString('utf8')) : null;
      if (body === null) res.writeHead(req.method === 'DELETE' ? 204 : 202).end();
      else res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body), 'Mcp-Session-Id': 'echo' }).end(body);
    });
  });
  server.listen(0, '127.0.0.1', () => process.stdout.write(`${(server.address() as { port: number }).port}\n`));
} else {
  createInterface({ input: process.stdin }).on('line', (line) => {
    const a = answer(line);
    if (a !== null) process.stdout.write(`${a}\n`);
  });
}
