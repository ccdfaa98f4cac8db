#!/usr/bin/env bash
# Installs (or reuses) the pinned n8n server used by the end-to-end tests and the benchmark
# (its n8n-nodes-base provides the HTTP Request node). It lives outside the package's
# node_modules, in a cache folder reused across runs, because it takes minutes and 3 GB.
# Prints the install folder on stdout.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
N8N_VERSION="2.41.1"
NODE_MAJOR=24
OVERRIDES='"linkedom": "0.18.14"'
# E2E_N8N=1: n8n 1.x, the line still patched and widely self-hosted, on Node 22 (its
# isolated-vm 6 wants 22). Its n8n-nodes-base names xlsx by a URL outside the registry.
if [ "${E2E_N8N:-2}" = 1 ]; then
  N8N_VERSION="1.123.81"
  NODE_MAJOR=22
  OVERRIDES='"xlsx": "0.18.5"'
fi
NODE_MAJOR="${NODE_MAJOR}" . "${here}/scripts/nodejs.sh"
dir="${N8N_INSTALL_DIR:-${HOME}/.cache/n8n-nodes-messaging/n8n-${N8N_VERSION}}"
if [ -x "${dir}/node_modules/.bin/n8n" ] && [ -f "${dir}/.complete" ]; then
  echo "${dir}"; exit 0
fi
mkdir -p "${dir}"
cat > "${dir}/package.json" <<JSON
{
  "name": "n8n-e2e-server",
  "private": true,
  "dependencies": { "n8n": "${N8N_VERSION}" },
  "overrides": { ${OVERRIDES} }
}
JSON
echo "install-n8n: installing n8n ${N8N_VERSION} into ${dir}: the first time only, about 10 minutes and 3 GB on 2 cores (a line every 30 s shows it is going on)" >&2
# --ignore-scripts skips the addons we do not need (only the Kafka node stays broken);
# the two n8n needs to run are rebuilt against Node's headers.
( cd "${dir}" && npm install --ignore-scripts --no-audit --no-fund --loglevel=error >&2 \
  && echo "install-n8n: building sqlite3 and isolated-vm" >&2 \
  && npm rebuild sqlite3 isolated-vm --loglevel=error >&2 ) &
installing=$!
started=$(date +%s)
while kill -0 "${installing}" 2>/dev/null; do
  sleep 30
  kill -0 "${installing}" 2>/dev/null || break
  echo "install-n8n: $(( ($(date +%s) - started) / 60 )) min, $(du -sm "${dir}/node_modules" 2>/dev/null | cut -f1) MB so far" >&2
done
wait "${installing}"
touch "${dir}/.complete"
echo "${dir}"
