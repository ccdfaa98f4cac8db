const { src, dest, parallel } = require('gulp');

// tsc emits only JavaScript; n8n also loads each node's icons and codex JSON from dist/.
function copyIcons() {
	return src('icons/**/*.svg').pipe(dest('dist/icons'));
}

function copyCodex() {
	return src('nodes/**/*.node.json').pipe(dest('dist/nodes'));
}

exports['build:assets'] = parallel(copyIcons, copyCodex);
exports.default = exports['build:assets'];
