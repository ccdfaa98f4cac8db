import path from 'node:path';

/** bench/lib → repository root (tsx runs this file as CommonJS, so __dirname is defined). */
export const REPO_ROOT = path.resolve(__dirname, '..', '..');
