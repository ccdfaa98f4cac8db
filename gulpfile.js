const { rmSync } = require('node:fs');

const { src, dest, parallel } = require('gulp');

// A fresh dist/ each build, so files of deleted sources are never packed.
function clean(done) {
	rmSync('dist', { recursive: true, force: true });
	done();
}

// tsc emits only JavaScript; n8n also loads each node's icons and codex JSON from dist/.
function copyIcons() {
	return src('icons/**/*.svg').pipe(dest('dist/icons'));
}

function copyCodex() {
	return src('nodes/**/*.node.json').pipe(dest('dist/nodes'));
}

exports.clean = clean;
exports['build:assets'] = parallel(copyIcons, copyCodex);
exports.default = exports['build:assets'];
