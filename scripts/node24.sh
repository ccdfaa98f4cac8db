#!/usr/bin/env bash
# Source this file: `. scripts/node24.sh`: Node 24 first on PATH (see nodejs.sh), as n8n 2.x needs.
NODE_MAJOR=24 . "$(dirname "${BASH_SOURCE[0]}")/nodejs.sh"
