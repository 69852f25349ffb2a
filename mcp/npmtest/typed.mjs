// Typed answers through the TypeScript SDK 1.x client over askonce
// serve's /mcp: ask_user asks a question of typed fields (a bounded
// whole number, two options that differ only in case, a multi-select, a
// date, a yes/no); the SDK checks askonce's requestedSchema and the
// content against it; the content answers with the second spelling, a
// number and a list, and ask_user resumes with them typed. On a second
// job the answer tool gets an out-of-range number and a bad pick: a tool
// error naming each field. Usage: node typed.mjs http
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { report, settings } from './lib.mjs';

const s = settings();
const fields = [
    { name: 'replicas', type: 'NUMBER', text: 'How many replicas?', integer: true, minimum: 1, maximum: 10, required: true },
    { name: 'db', type: 'SELECT_ONE', text: 'Which database?', options: ['Postgres', 'postgres'], optionTitles: ['Postgres (managed)', 'postgres (ours)'], required: true },
    { name: 'zones', type: 'SELECT_MANY', text: 'Which zones?', options: ['eu', 'us', 'ap'], maxItems: 2 },
    { name: 'start', type: 'FREE_TEXT', text: 'From when?', format: 'date' },
    { name: 'migrate', type: 'CONFIRM', text: 'Run the migrations?' }
];

const client = new Client({ name: 'askonce-npm-typed', version: '1.0.0' }, { capabilities: { elicitation: { form: {} } } });
let schema;
client.setRequestHandler(ElicitRequestSchema, async request => {
    schema = request.params.requestedSchema;
    const db = schema.properties.db.oneOf.find(o => o.title === 'postgres (ours)');
    assert.ok(db, `no titled option "postgres (ours)" in ${JSON.stringify(schema.properties.db)}`);
    return { action: 'accept', content: { replicas: 3, db: db.const, zones: ['us', 'eu'], start: '2026-12-01', migrate: true } };
});
await client.connect(new StreamableHTTPClientTransport(new URL(s.url)));

const first = await client.callTool({ name: 'ask_user', arguments: { question: 'Before the deploy:', task: 'typed-1', fields } });
assert.ok(!first.isError, `ask_user failed: ${JSON.stringify(first)}`);
const resumed = first.structuredContent;
assert.equal(resumed.action, 'resume', `ask_user: ${JSON.stringify(resumed)}`);

await client.close();

// A client that cannot elicit gets "ask" and passes the answer itself.
const relay = new Client({ name: 'askonce-npm-relay', version: '1.0.0' });
await relay.connect(new StreamableHTTPClientTransport(new URL(s.url)));
const second = await relay.callTool({ name: 'ask_user', arguments: { question: 'Before the deploy:', task: 'typed-2', fields } });
assert.equal(second.structuredContent?.action, 'ask', `ask_user: ${JSON.stringify(second)}`);
const jobId = second.structuredContent.jobId;
const bad = await relay.callTool({ name: 'answer', arguments: { jobId, answer: { replicas: 11, db: 'POSTGRES' } } });
assert.ok(bad.isError, `a bad answer was taken: ${JSON.stringify(bad)}`);
const job = await relay.callTool({ name: 'get_job', arguments: { jobId } });
await relay.close();

report({
    client: '@modelcontextprotocol/sdk',
    transport: s.transport,
    schema: { replicas: schema.properties.replicas, zones: schema.properties.zones, start: schema.properties.start, migrate: schema.properties.migrate },
    value: resumed.value,
    refused: bad.content.map(c => c.text).join('\n'),
    statusAfterRefusal: job.structuredContent.status
});
