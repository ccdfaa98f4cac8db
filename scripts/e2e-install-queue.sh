#!/usr/bin/env bash
# Prerequisites of the queue-mode scenario (`npm run test:queue`): Debian's PostgreSQL and
# Redis servers. Installs `postgresql redis-server` with apt only when their binaries are
# missing (root or sudo needed then), without starting the clusters/services the packages
# would start on their default ports: the scenario runs its own on free loopback ports.
# Prints the PostgreSQL bin folder (initdb, postgres, pg_isready) on the last line of stdout.
set -euo pipefail

pg_bin() {
  # The newest installed major version.
  local dir
  dir="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)"
  [ -n "${dir}" ] && [ -x "${dir}/initdb" ] && [ -x "${dir}/postgres" ] && [ -x "${dir}/pg_isready" ] && echo "${dir}"
}

if pg_bin >/dev/null && command -v redis-server >/dev/null 2>&1; then
  pg_bin; exit 0
fi

sudo=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null 2>&1 || {
    echo "e2e-install-queue: PostgreSQL or Redis is missing; need root or sudo to apt-get install postgresql redis-server" >&2
    exit 1
  }
  sudo="sudo"
fi

# Debian's maintainer scripts start a cluster on 5432 and Redis on 6379; a policy-rc.d that
# answers 101 ("action forbidden") keeps them from starting. An existing policy is left alone.
policy=/usr/sbin/policy-rc.d
own_policy=""
if [ ! -e "${policy}" ]; then
  printf '#!/bin/sh\nexit 101\n' | ${sudo} tee "${policy}" >/dev/null
  ${sudo} chmod 755 "${policy}"
  own_policy=1
fi
cleanup() { if [ -n "${own_policy}" ]; then ${sudo} rm -f "${policy}"; fi; }
trap cleanup EXIT

echo "e2e-install-queue: installing postgresql redis-server (apt)" >&2
export DEBIAN_FRONTEND=noninteractive
${sudo} apt-get update -qq >&2
${sudo} apt-get install -y -qq --no-install-recommends postgresql redis-server >&2

dir="$(pg_bin)" || { echo "e2e-install-queue: installed, but no /usr/lib/postgresql/*/bin/initdb found" >&2; exit 1; }
command -v redis-server >/dev/null 2>&1 || { echo "e2e-install-queue: installed, but redis-server is not on PATH" >&2; exit 1; }
echo "e2e-install-queue: PostgreSQL in ${dir}, $(redis-server --version | cut -d' ' -f1-3)" >&2
echo "${dir}"
