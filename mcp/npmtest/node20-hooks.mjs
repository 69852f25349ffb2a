// Module hook for conformance.mjs on Node < 22: the conformance bundle's
// imports of fs resolve to node20-fs.mjs (fs plus a globSync stub).
const shim = new URL('./node20-fs.mjs', import.meta.url).href;

export async function resolve(specifier, context, next) {
    if ((specifier === 'fs' || specifier === 'node:fs') && context.parentURL?.includes('/@modelcontextprotocol/conformance/')) {
        return { url: shim, shortCircuit: true };
    }
    return next(specifier, context);
}
