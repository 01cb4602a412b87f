#!/usr/bin/env bash
# Prints a TCP port on 127.0.0.1 that nothing listens on (bash only, no tools).
for port in $(seq "${1:-18765}" $(( ${1:-18765} + 200 ))); do
  if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
    echo "$port"; exit 0
  fi
done
echo "no free port found" >&2; exit 1
