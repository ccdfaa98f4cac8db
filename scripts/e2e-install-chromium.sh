#!/usr/bin/env bash
# Installs Debian's Chromium (and a font set, so screenshots render text) for the editor
# end-to-end test, only when /usr/bin/chromium is missing. Never downloads a browser from
# anywhere else: playwright-core drives this binary through executablePath.
# Needs root (or sudo) and apt; CI runs it before `npm run test:e2e`.
set -euo pipefail
if [ -x /usr/bin/chromium ]; then
  echo "e2e-install-chromium: /usr/bin/chromium present ($(/usr/bin/chromium --version 2>/dev/null || echo 'version unknown'))"
  exit 0
fi
sudo=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null 2>&1 || { echo "e2e-install-chromium: need root or sudo to apt-get install chromium" >&2; exit 1; }
  sudo="sudo"
fi
export DEBIAN_FRONTEND=noninteractive
${sudo} apt-get update -qq
${sudo} apt-get install -y -qq --no-install-recommends chromium fonts-liberation >/dev/null
echo "e2e-install-chromium: installed $(/usr/bin/chromium --version 2>/dev/null || echo chromium)"
