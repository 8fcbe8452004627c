#!/bin/sh
# Denies shell commands that destroy data. Reads the hook payload (compact JSON) on stdin.
payload=$(cat)
case "$payload" in
  *'"command":"rm -rf'* | *'"command":"sudo rm'* | *'mkfs'* | *'dd if='*)
    echo "refusing a destructive shell command (rm -rf, mkfs, dd)" >&2
    exit 2
    ;;
esac
exit 0
