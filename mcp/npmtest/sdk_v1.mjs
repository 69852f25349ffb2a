// @modelcontextprotocol/sdk 1.x (the TypeScript SDK clients ship today):
// a 2025-11-25 client that receives askonce's question as a
// server-initiated elicitation/create. Usage: node sdk_v1.mjs stdio|http
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { answerHot, checkPlan, goal, report, settings, tap } from './lib.mjs';

const s = settings();
const client = new Client({ name: 'askonce-npm-sdk-v1', version: '1.0.0' }, { capabilities: { elicitation: { form: {} } } });
const counter = { n: 0 };
client.setRequestHandler(ElicitRequestSchema, answerHot(counter));

const transport =
    s.transport === 'stdio'
        ? new StdioClientTransport({ command: s.bin, args: ['mcp', '--db', s.db], stderr: 'inherit' })
        : new StreamableHTTPClientTransport(new URL(s.url));
// The client hands the negotiated version to transports that take it;
// the stdio transport has no such hook, so record it there.
let negotiated;
const set = transport.setProtocolVersion?.bind(transport);
transport.setProtocolVersion = v => {
    negotiated = v;
    set?.(v);
};
const seen = [];
await client.connect(tap(transport, seen));

const result = await client.callTool({ name: 'plan', arguments: { goal } });
const job = checkPlan(result);
assert.equal(counter.n, 1, `elicited ${counter.n} times, want 1`);
const elicitRequests = seen.filter(m => m.method === 'elicitation/create').length;
assert.equal(elicitRequests, 1, `${elicitRequests} elicitation/create requests on the wire, want 1`);
report({
    client: '@modelcontextprotocol/sdk',
    transport: s.transport,
    protocolVersion: negotiated,
    server: client.getServerVersion(),
    elicitations: counter.n,
    via: 'elicitation/create',
    status: job.status,
    plan: job.plan
});
await client.close();
