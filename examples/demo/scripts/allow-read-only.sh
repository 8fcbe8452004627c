#!/bin/sh
# Allows read-only shell commands without asking; says nothing about the rest.
payload=$(cat)
case "$payload" in
  *'"command":"ls'* | *'"command":"cat '* | *'"command":"git status'*)
    echo '{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"}}}'
    ;;
esac
exit 0
