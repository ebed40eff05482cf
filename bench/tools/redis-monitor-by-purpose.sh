#!/bin/bash
# Top-level Redis commands of a MONITOR capture (`redis-cli -p PORT MONITOR > FILE` beside a bench),
# by purpose: command, script sha for EVALSHA, first key with the bench's prefix and release stripped.
# Commands run inside scripts (MONITOR's `[0 lua]` lines) are left out. Usage: redis-monitor-by-purpose.sh FILE
grep -v 'lua\]' "$1" | awk '{cmd=$4; key=$5; sha=""; if (cmd=="\"evalsha\"") {sha=substr($5,2,8); key=$7} print cmd, sha, key}' |
  sed -E 's/"//g; s/bench-burst-[0-9a-f]+://; s/:[^ ]*unrouted:.*/:unrouted/; s/requests:.*/requests/; s/(reconcile|notify|preview):[^ ]*/\1/' |
  sort | uniq -c | sort -rn
