// @modelcontextprotocol/client 2.x: negotiates the 2026-07-28 protocol
// (server/discover, versionNegotiation 'auto') and receives askonce's
// question as an input_required result (Multi Round-Trip Requests), which
// it fulfils through its elicitation/create handler and retries with
// inputResponses and the echoed requestState. Usage: node client_v2.mjs stdio|http
import assert from 'node:assert/strict';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { answerHot, checkPlan, goal, report, settings, tap } from './lib.mjs';

const s = settings();
const client = new Client(
    // askonce keys a sessionless (2026-07-28) HTTP session by API key and
    // client name, and answers a repeated question of a session from its
    // history; a fresh name per run is a fresh session, asked afresh.
    { name: `askonce-npm-client-v2-${process.pid}`, version: '1.0.0' },
    { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: 'auto' } }
);
const counter = { n: 0 };
client.setRequestHandler('elicitation/create', answerHot(counter));

const transport =
    s.transport === 'stdio'
        ? new StdioClientTransport({ command: s.bin, args: ['mcp', '--db', s.db], stderr: 'inherit' })
        : new StreamableHTTPClientTransport(new URL(s.url));
const seen = [];
await client.connect(tap(transport, seen));
const negotiated = client.getNegotiatedProtocolVersion();
assert.equal(negotiated, '2026-07-28', 'the v2 client negotiates the modern protocol with askonce');

const result = await client.callTool({ name: 'plan', arguments: { goal } });
const job = checkPlan(result);
assert.equal(counter.n, 1, `elicited ${counter.n} times, want 1`);
const inputRequired = seen.filter(m => m.result?.resultType === 'input_required').length;
assert.equal(inputRequired, 1, `${inputRequired} input_required results on the wire, want 1: ${JSON.stringify(seen)}`);
const serverRequests = seen.filter(m => m.method === 'elicitation/create').length;
assert.equal(serverRequests, 0, 'no server-initiated elicitation/create in the 2026-07-28 era');
report({
    client: '@modelcontextprotocol/client',
    transport: s.transport,
    protocolVersion: negotiated,
    era: client.getProtocolEra?.(),
    elicitations: counter.n,
    via: 'input_required',
    status: job.status,
    plan: job.plan
});
await client.close();
