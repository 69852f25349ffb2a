// Shared by the client scripts: the environment cmd/askonce/mcp_npm_test.go
// passes, the elicitation answer, a wire tap and the plan's assertions.
import assert from 'node:assert/strict';

/** The script's settings: which transport, and where askonce is. */
export function settings() {
    const transport = process.argv[2];
    if (transport !== 'stdio' && transport !== 'http') {
        throw new Error(`usage: node ${process.argv[1]} stdio|http`);
    }
    const need = transport === 'stdio' ? ['ASKONCE_BIN', 'ASKONCE_DB'] : ['ASKONCE_URL'];
    for (const k of need) {
        if (!process.env[k]) throw new Error(`${k} is not set`);
    }
    return {
        transport,
        bin: process.env.ASKONCE_BIN,
        db: process.env.ASKONCE_DB,
        url: process.env.ASKONCE_URL
    };
}

export const goal = 'hot frozen cheese';

/**
 * answerHot answers askonce's form elicitation by choosing the option
 * "hot" (by its const or its title) and counts the elicitations in
 * counter.n. It fails when the form does not offer "hot".
 */
export function answerHot(counter) {
    return async request => {
        counter.n++;
        const params = request.params;
        assert.equal(params.mode ?? 'form', 'form', 'askonce elicits a form');
        const field = params.requestedSchema?.properties?.answer;
        assert.ok(field, `no answer field in ${JSON.stringify(params.requestedSchema)}`);
        const options = field.oneOf ?? (field.enum ?? []).map(v => ({ const: v, title: v }));
        const hot = options.find(o => o.const === 'hot' || o.title === 'hot');
        assert.ok(hot, `no option "hot" in ${JSON.stringify(field)}`);
        counter.message = params.message;
        return { action: 'accept', content: { answer: hot.const } };
    };
}

/**
 * tap records every JSON-RPC message a transport receives, in seen: the
 * wire evidence of how the question arrived (an elicitation/create request
 * or an input_required result). It wraps the onmessage the client installs.
 */
export function tap(transport, seen) {
    let handler;
    Object.defineProperty(transport, 'onmessage', {
        configurable: true,
        get: () => handler,
        set: fn => {
            handler = fn && ((message, extra) => {
                seen.push(message);
                return fn(message, extra);
            });
        }
    });
    return transport;
}

/** checkPlan asserts that the tool result is askonce's job for goal, planned hot. */
export function checkPlan(result) {
    assert.ok(!result.isError, `plan failed: ${JSON.stringify(result)}`);
    const job = result.structuredContent;
    assert.ok(job, `no structured content: ${JSON.stringify(result)}`);
    assert.equal(job.status, 'success', `job: ${JSON.stringify(job)}`);
    assert.ok(job.plan, `no plan: ${JSON.stringify(job)}`);
    assert.equal(job.plan.spec?.attributes?.temperature, 'hot', `the plan does not settle the answer "hot": ${JSON.stringify(job.plan)}`);
    return job;
}

/** report prints the outcome as one JSON line, for the Go test and docs/mcp.md. */
export function report(fields) {
    console.log(JSON.stringify(fields));
}
