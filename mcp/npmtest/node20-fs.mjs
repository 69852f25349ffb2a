// fs for the conformance bundle on Node < 22: everything of node:fs, and a
// globSync that fails clearly (only the tier-check command calls it).
import fs from 'node:fs';

export * from 'node:fs';
export default fs;
export function globSync() {
    throw new Error('fs.globSync needs Node 22 or later (used only by conformance tier-check)');
}
