#!/bin/sh
# The `hook` command of the npm package: runs the binary of this machine's platform package (an optional dependency
# npm installs only where its `os` and `cpu` match) in this process's place, with `exec`, so its arguments, standard
# streams, exit status and signals are the binary's own. An agent runs `hook` on every event: a POSIX shell that
# tests a few paths starts in about a millisecond, where Node.js takes tens. Where npm laid the package out some
# other way, hook.js finds it with Node's own resolution. Written by `cargo xtask release` (xtask/src/release/hook.sh).
at=${0%/*}
for platform in @PLATFORMS@; do
  for binary in \
    "$at/../lib/node_modules/hook-engine/node_modules/@hook-engine/$platform/bin/hook" \
    "$at/../lib/node_modules/@hook-engine/$platform/bin/hook" \
    "$at/../@hook-engine/$platform/bin/hook" \
    "$at/../node_modules/@hook-engine/$platform/bin/hook" \
    "$at/../../@hook-engine/$platform/bin/hook"; do
    if [ -x "$binary" ]; then
      # `hook install` compares `hook` on PATH with the binary that runs: this script is how npm puts it there.
      HOOK_LAUNCHER=$0 exec "$binary" "$@"
    fi
  done
done
self=$(readlink -f -- "$0" 2>/dev/null) || self=$0
HOOK_LAUNCHER=$0 exec node "${self%/*}/hook.js" "$@"
