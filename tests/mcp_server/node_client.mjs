// A second, independent MCP client: the TypeScript SDK's Client over stdio against `memlens mcp`.
// Usage: node node_client.mjs COMMAND [ARG ...]   (the command that starts the server)
// Prints one JSON object: the tool names, the search tool's input schema, and one search answer.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const [command, ...args] = process.argv.slice(2);
const transport = new StdioClientTransport({ command, args, env: process.env, stderr: 'inherit' });
const client = new Client({ name: 'memlens-node-test', version: '1.0.0' });
await client.connect(transport);
try {
  const { tools } = await client.listTools();
  const search = await client.callTool({ name: 'search', arguments: { query: 'pgbouncer pool mode', limit: 3 } });
  const bad = await client.callTool({ name: 'search', arguments: { query: 'x', mode: 'psychic' } });
  process.stdout.write(
    JSON.stringify({
      tools: tools.map((t) => t.name),
      searchSchema: tools.find((t) => t.name === 'search')?.inputSchema,
      search: { isError: search.isError ?? false, text: search.content[0]?.text, structured: search.structuredContent },
      bad: { isError: bad.isError ?? false, text: bad.content[0]?.text },
    }) + '\n',
  );
} finally {
  await client.close();
}
