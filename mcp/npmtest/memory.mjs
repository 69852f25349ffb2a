// Answer memory through the TypeScript SDK 1.x client over askonce
// serve's /mcp: two agents (two MCP sessions) plan the same goal with
// the project "shop"; the first is asked once, the second is answered
// from the project's memory without an elicitation. A third client sends
// roots and no project: its first root folder's name is the job's
// project. Usage: node memory.mjs http
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema, ListRootsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { answerHot, checkPlan, goal, report, settings } from './lib.mjs';

const s = settings();

async function agent(name, args, roots) {
    const capabilities = { elicitation: { form: {} } };
    if (roots) capabilities.roots = {};
    const client = new Client({ name, version: '1.0.0' }, { capabilities });
    const counter = { n: 0 };
    client.setRequestHandler(ElicitRequestSchema, answerHot(counter));
    if (roots) client.setRequestHandler(ListRootsRequestSchema, async () => ({ roots }));
    await client.connect(new StreamableHTTPClientTransport(new URL(s.url)));
    const job = checkPlan(await client.callTool({ name: 'plan', arguments: { goal, ...args } }));
    await client.close();
    return { job, elicitations: counter.n };
}

const first = await agent('askonce-npm-agent-1', { project: 'shop' });
assert.equal(first.elicitations, 1, 'the first agent is asked once');
const second = await agent('askonce-npm-agent-2', { project: 'shop' });
assert.equal(second.elicitations, 0, 'the second agent is not asked');
assert.equal(second.job.answerSource, 'history');
assert.equal(second.job.memory?.jobId, first.job.jobId, `memory ${JSON.stringify(second.job.memory)}`);
const rooted = await agent('askonce-npm-agent-3', {}, [{ uri: 'file:///home/dev/shop', name: 'shop' }]);
report({
    client: '@modelcontextprotocol/sdk',
    transport: s.transport,
    firstElicitations: first.elicitations,
    secondElicitations: second.elicitations,
    answeredFrom: second.job.answeredFrom,
    rootedElicitations: rooted.elicitations,
    rootedAnsweredFrom: rooted.job.answeredFrom ?? ''
});
