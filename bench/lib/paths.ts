/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- not shipped: the benchmark, run by Node outside n8n (README: Lint) */
import path from 'node:path';

/** bench/lib → repository root (tsx runs this file as CommonJS, so __dirname is defined). */
export const REPO_ROOT = path.resolve(__dirname, '..', '..');
