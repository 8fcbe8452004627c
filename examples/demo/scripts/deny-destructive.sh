#!/bin/sh
# Denies: the hook's `command:` matcher runs it only for a line that runs rm -rf, mkfs or dd onto a file.
echo "refusing a destructive shell command (rm -rf, mkfs, dd)" >&2
exit 2
