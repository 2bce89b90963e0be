#!/usr/bin/env bash
# The Debian package, checked on this machine as an operator would use it
# (tools/package/README.md): packed from the build already made, lintian
# clean, installed, its unit verified, `buzz serve` run as the unit runs it
# (its user, its directories, its limits, the installed /etc/buzz/buzz.yaml)
# and answering, stopped by SIGTERM with a clean drain, its system calls all
# allowed by the unit's filter; then removed (data and config kept), purged
# (data kept: the default answer) and purged again answering yes (data gone).
# Needs root; systemd need not run (no systemctl start). Run by
# tools/setup/test.sh after the build.
# Usage: check_install.sh BUILD_DIR
set -euo pipefail
build=$(cd "$1" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
unit=/lib/systemd/system/buzz.service
work=$(mktemp -d /tmp/buzz-package-check.XXXXXX)
pid=
cleanup() {
  [[ -n $pid ]] && kill -KILL "$pid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "package check: $*" >&2; [[ -f $work/serve.log ]] && tail -20 "$work/serve.log" >&2; exit 1; }
step() { echo "package check: $*"; }

# A machine with its own buzz installation (a relay, its data) is left alone.
marker=/var/lib/buzz/.package-check
if { dpkg-query -W -f='${Status}' buzz 2>/dev/null | grep -q 'install ok' || [[ -d /var/lib/buzz ]]; } && [[ ! -e $marker ]]; then
  echo "package check: skipped, buzz is installed here already (remove it, or run on a fresh machine)"
  exit 0
fi
export DEBIAN_FRONTEND=noninteractive

step "packing (cpack, from the binary already built)"
(cd "$build" && cpack -G DEB >"$work/cpack.log" 2>&1) || { cat "$work/cpack.log" >&2; fail "cpack failed"; }
deb=$(ls -t "$build"/buzz_*.deb | head -1)
step "lintian $(basename "$deb")"
lintian --fail-on error,warning "$deb" ||
  fail "lintian found tags (fix them, or override with a reason in tools/package/lintian-overrides)"

step "installing"
apt-get install -y -qq --reinstall --allow-downgrades "$deb" >"$work/apt.log" 2>&1 || { cat "$work/apt.log" >&2; fail "apt-get install"; }
touch "$marker"
dpkg-query -W -f='${Conffiles}\n' buzz | grep -q '/etc/buzz/buzz.yaml' || fail "/etc/buzz/buzz.yaml is not a conffile"
[[ $(getent passwd buzz | cut -d: -f7) == */nologin ]] || fail "no system user buzz with a nologin shell"
[[ $(stat -c %U:%G /var/lib/buzz) == buzz:buzz ]] || fail "/var/lib/buzz is not owned by buzz"
systemd-analyze verify --man=no "$unit" || fail "systemd-analyze verify $unit"

# What the unit says, read from the installed file.
unit_value() { sed -n "s/^$1=//p" "$unit" | tail -1; }
user=$(unit_value User) group=$(unit_value Group) workdir=$(unit_value WorkingDirectory)
exec_start=$(unit_value ExecStart) nofile=$(unit_value LimitNOFILE) umask_value=$(unit_value UMask)
stop_timeout=$(unit_value TimeoutStopSec)
read -r -a command <<<"$exec_start"

# A container's root may not raise its hard limit: then as high as it allows.
hard=$(ulimit -Hn)
[[ $hard != unlimited ]] && ((hard < nofile)) && nofile=$hard
step "running '$exec_start' as $user, as the unit does"
# Only the address differs from the unit's run: another relay may hold 3000
# here, so the kernel picks a free port, read from the first line the relay prints.
(cd "$workdir" && umask "$umask_value" &&
  exec env -i PATH=/usr/bin:/bin BUZZ_BIND_ADDR=127.0.0.1:0 \
    strace -f -qq -o "$work/trace" \
    prlimit --nofile="$nofile:$nofile" \
    setpriv --reuid="$user" --regid="$group" --init-groups --no-new-privs --bounding-set=-all --inh-caps=-all \
    "${command[@]}") >"$work/serve.log" 2>&1 &
pid=$!
port=
for _ in $(seq 150); do
  port=$(sed -n 's/^buzz .* listening on 127\.0\.0\.1:\([0-9]*\) .*/\1/p' "$work/serve.log")
  [[ -n $port ]] && break
  kill -0 "$pid" 2>/dev/null || fail "buzz serve exited at start"
  sleep 0.2
done
[[ -n $port ]] || fail "buzz serve did not start listening"
curl -fs "http://127.0.0.1:$port/health" >/dev/null || fail "/health does not answer"
curl -fs -H 'Accept: application/nostr+json' "http://127.0.0.1:$port/" | grep -q '"supported_nips"' || fail "no NIP-11 document"
grep -q "data in /var/lib/buzz" "$work/serve.log" || fail "the relay does not serve /var/lib/buzz"
[[ $(stat -c %U /var/lib/buzz/relay.key) == "$user" ]] || fail "relay.key is not the service user's"
[[ $(stat -c %a /var/lib/buzz/relay.key) == 600 || $(stat -c %a /var/lib/buzz/relay.key) == 640 ]] ||
  fail "relay.key is readable by others: $(stat -c %a /var/lib/buzz/relay.key)"

step "SIGTERM: drained and exited 0 within TimeoutStopSec ($stop_timeout)"
buzz_pid=$(pgrep -P "$pid" -x buzz || echo "$pid")
kill -TERM "$buzz_pid"
for _ in $(seq $((${stop_timeout%s} * 10))); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
kill -0 "$pid" 2>/dev/null && fail "still running $stop_timeout after SIGTERM"
wait "$pid" && status=0 || status=$?
pid=
((status == 0)) || fail "exit status $status after SIGTERM"
grep -q '"drained"' "$work/serve.log" || fail "no drain in the log"

step "system calls against the unit's SystemCallFilter"
# Expanded from systemd's own groups; only what buzz called after its execve counts.
allowed() {
  local item
  for item in "$@"; do
    if [[ $item == @* ]]; then
      allowed $(systemd-analyze syscall-filter "$item" | sed -n 's/^    \([@a-z0-9_-]*\)$/\1/p')
    else
      echo "$item"
    fi
  done
}
allow=() deny=()
while read -r line; do
  if [[ $line == '~'* ]]; then read -r -a items <<<"${line#\~}"; deny+=("${items[@]}"); else read -r -a items <<<"$line"; allow+=("${items[@]}"); fi
done < <(sed -n 's/^SystemCallFilter=//p' "$unit")
allowed "${deny[@]}" | sort -u >"$work/denied"
allowed "${allow[@]}" @default | sort -u | comm -23 - "$work/denied" >"$work/allowed"
awk '/execve\("\/usr\/bin\/buzz"/ { on = 1; next } on { sub(/^[0-9]+ +/, ""); if (match($0, /^[a-z0-9_]+\(/)) print substr($0, 1, RLENGTH - 1) }' \
  "$work/trace" | sort -u >"$work/called"
[[ -s $work/called ]] || fail "strace saw no system call of buzz"
denied=$(comm -23 "$work/called" "$work/allowed")
[[ -z $denied ]] || fail "system calls outside the unit's SystemCallFilter: $denied"
! grep -E 'PROT_WRITE\|PROT_EXEC|PROT_EXEC\|PROT_WRITE' "$work/trace" || fail "writable and executable memory (MemoryDenyWriteExecute=yes)"
families=$(grep -o 'socket(AF_[A-Z0-9]*' "$work/trace" | sort -u | sed 's/socket(//' | tr '\n' ' ')
for f in $families; do
  grep -q "RestrictAddressFamilies=.*\b$f\b" "$unit" || fail "socket family $f outside RestrictAddressFamilies"
done

step "remove: the data and the configuration stay"
apt-get remove -y -qq buzz >"$work/apt.log" 2>&1 || { cat "$work/apt.log" >&2; fail "apt-get remove"; }
[[ -f /var/lib/buzz/relay.key && -f /etc/buzz/buzz.yaml ]] || fail "remove deleted data or configuration"
step "purge, default answer: the data stays, the configuration goes"
dpkg --purge buzz >"$work/apt.log" 2>&1 || { cat "$work/apt.log" >&2; fail "dpkg --purge"; }
[[ -f /var/lib/buzz/relay.key ]] || fail "purge deleted the data without being told to"
[[ ! -e /etc/buzz ]] || fail "purge left /etc/buzz"
step "purge, answering yes: the data goes"
apt-get install -y -qq "$deb" >"$work/apt.log" 2>&1 || { cat "$work/apt.log" >&2; fail "apt-get install (again)"; }
echo "buzz buzz/purge_data boolean true" | debconf-set-selections
dpkg --purge buzz >"$work/apt.log" 2>&1 || { cat "$work/apt.log" >&2; fail "dpkg --purge (yes)"; }
[[ ! -e /var/lib/buzz ]] || fail "purge answered yes kept /var/lib/buzz"
step "passed"
