#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# A throw-away single-node Ceph RADOS Gateway on loopback: the real S3 server of the tests.
#
#   scripts/rgw.sh start DIR    fresh cluster in DIR (a cluster left there by a crashed run is
#                               killed and wiped first); prints `export ...` lines for the tests
#   scripts/rgw.sh stop DIR     stops the daemons (rgw, osd, mon) and removes DIR
#   scripts/rgw.sh env DIR      prints the `export ...` lines again
#
# One mon, one BlueStore OSD on a sparse file, no mgr, radosgw (beast) with tcp_nodelay
# (without it every keep-alive request stalls ~40 ms on Nagle + delayed ACK) and STS enabled
# (the tests use real AssumeRole session tokens). Ports: RGW_PORT (7480), MON_PORT (6789).
# Debian packages ceph-mon ceph-osd radosgw are installed by scripts/setup.sh.
set -euo pipefail

cmd=${1:?usage: rgw.sh start|stop|env DIR}
D=$(realpath -m "${2:?usage: rgw.sh start|stop|env DIR}")
RGW_PORT=${RGW_PORT:-7480}
MON_PORT=${MON_PORT:-6789}
ACCESS_KEY=${S3_ACCESS_KEY:-lance-test-key}
SECRET_KEY=${S3_SECRET_KEY:-lance-test-secret}
BUCKET=${S3_BUCKET:-lance-test}
C=(-c "$D/ceph.conf")

log() { echo "[rgw] $*" >&2; }
fail() {
  log "$*"
  tail -n 30 "$D"/log/*.log >&2 2>/dev/null || true
  exit 1
}
# Inside one start attempt: report and return failure, so start() can retry from scratch.
attempt_fail() {
  log "$*"
  tail -n 10 "$D"/log/*.log >&2 2>/dev/null || true
  return 1
}

print_env() {
  cat <<ENV
export LANCE_S3_ENDPOINT=http://127.0.0.1:$RGW_PORT
export LANCE_S3_REGION=us-east-1
export LANCE_S3_ACCESS_KEY=$ACCESS_KEY
export LANCE_S3_SECRET_KEY=$SECRET_KEY
export LANCE_S3_BUCKET=$BUCKET
export LANCE_S3_STS_ROLE_ARN=arn:aws:iam:::role/S3Access
export LANCE_RGW_CONF=$D/ceph.conf
ENV
}

# Kills the daemons whose pid files are in DIR (SIGTERM, then SIGKILL after 5 s).
stop_daemons() {
  local pids=()
  for n in client.rgw osd.0 mon.a; do
    local f="$D/run/$n.pid"
    [ -f "$f" ] || continue
    local p
    p=$(cat "$f")
    # Only our own daemons: the pid must still run a ceph binary.
    if kill -0 "$p" 2>/dev/null && grep -qE 'radosgw|ceph-osd|ceph-mon' "/proc/$p/cmdline" 2>/dev/null; then
      kill "$p" 2>/dev/null && pids+=("$p")
    fi
  done
  # Daemons whose pid files are gone (a wiped directory) still name our ceph.conf.
  local proc
  for proc in /proc/[0-9]*; do
    if tr '\0' ' ' <"$proc/cmdline" 2>/dev/null | grep -qE "(radosgw|ceph-osd|ceph-mon) .*$D/ceph.conf"; then
      kill "${proc#/proc/}" 2>/dev/null && pids+=("${proc#/proc/}")
    fi
  done
  for p in "${pids[@]}"; do
    for _ in $(seq 1 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$p" 2>/dev/null || true
  done
}

port_busy() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

start() {
  for b in ceph-mon ceph-osd radosgw radosgw-admin monmaptool ceph-authtool uuidgen curl; do
    command -v "$b" >/dev/null || fail "$b is missing: run scripts/setup.sh"
  done
  if [ -d "$D" ]; then
    log "removing a cluster left by an earlier run in $D"
    stop_daemons
    rm -rf "$D"
  fi
  port_busy "$RGW_PORT" && fail "port $RGW_PORT is in use (another RGW? set RGW_PORT)"
  port_busy "$MON_PORT" && fail "port $MON_PORT is in use (another ceph-mon? set MON_PORT)"
  # On a loaded machine a fresh OSD sometimes asks the mon before it has the cluster map
  # and exits ("wrong fsid"); a clean retry from scratch always got past it.
  local try
  for try in 1 2 3; do
    if start_once; then
      log "up on http://127.0.0.1:$RGW_PORT (dir $D, bucket $BUCKET)"
      print_env
      return 0
    fi
    log "start attempt $try failed; wiping $D and retrying"
    stop_daemons
    rm -rf "$D"
    sleep 1
  done
  fail "RGW did not start after 3 attempts"
}

start_once() {
  mkdir -p "$D"/{mon,osd0,rgw,run,log}
  local fsid
  fsid=$(uuidgen)
  cat >"$D/ceph.conf" <<CONF
[global]
fsid = $fsid
mon host = v1:127.0.0.1:$MON_PORT
mon initial members = a
public network = 127.0.0.0/8
ms bind ipv6 = false
ms bind msgr2 = false
auth cluster required = none
auth service required = none
auth client required = none
auth allow insecure global id reclaim = true
mon warn on insecure global id reclaim allowed = false
mon data avail warn = 1
mon data avail crit = 0
osd pool default size = 1
osd pool default min size = 1
osd pool default pg num = 8
osd pool default pgp num = 8
osd pool default pg autoscale mode = off
mon allow pool size one = true
mon allow pool delete = true
mon warn on pool no redundancy = false
mon max pg per osd = 1000
osd crush chooseleaf type = 0
run dir = $D/run
admin socket = $D/run/\$name.asok
pid file = $D/run/\$name.pid
log file = $D/log/\$name.log
keyring = $D/keyring
mon data = $D/mon
osd data = $D/osd0
osd objectstore = bluestore
[osd]
# The block file must live outside "osd data" (mkfs fails with ELOOP otherwise). Sparse:
# 16 GiB of address space, only what is written takes disk.
bluestore block path = $D/osd0.block
bluestore block create = true
bluestore block size = 17179869184
bluestore fsck on mkfs = false
bluestore fsck on mount = false
bluestore cache autotune = false
bluestore cache size = 134217728
osd memory target = 939524096
osd op num shards = 1
osd op num threads per shard = 2
[client.rgw]
rgw frontends = beast endpoint=127.0.0.1:$RGW_PORT tcp_nodelay=1
rgw data = $D/rgw
rgw dns name = s3.localhost
rgw enable usage log = false
# Deleted objects' data is garbage-collected soon, not after 2 h: the benchmark writes GiBs.
rgw gc obj min wait = 10
rgw gc processor period = 10
rgw sts key = abcdefghijklmnop
rgw s3 auth use sts = true
log file = $D/log/rgw.log
CONF
  ceph-authtool --create-keyring "$D/keyring" --gen-key -n mon. --cap mon 'allow *' >/dev/null
  ceph-authtool "$D/keyring" --gen-key -n client.admin --cap mon 'allow *' --cap osd 'allow *' \
    --cap mgr 'allow *' >/dev/null
  monmaptool --create --clobber --add a "v1:127.0.0.1:$MON_PORT" --fsid "$fsid" "$D/monmap" >/dev/null
  ceph-mon "${C[@]}" --mkfs -i a --monmap "$D/monmap" --keyring "$D/keyring" || { attempt_fail "mon mkfs failed"; return 1; }
  ceph-mon "${C[@]}" -i a || { attempt_fail "mon did not start"; return 1; }
  # Wait until the mon answers before creating the OSD.
  local ok=""
  for _ in $(seq 1 120); do
    timeout 10 ceph "${C[@]}" mon stat >/dev/null 2>&1 && { ok=1; break; }
    sleep 0.25
  done
  [ -n "$ok" ] || { attempt_fail "mon is not answering"; return 1; }
  local osd_uuid id
  osd_uuid=$(uuidgen)
  id=$(timeout 60 ceph "${C[@]}" osd new "$osd_uuid") || { attempt_fail "osd new failed"; return 1; }
  ceph-osd "${C[@]}" -i "$id" --mkfs --osd-uuid "$osd_uuid" >"$D/log/osd-mkfs.log" 2>&1 || { attempt_fail "osd mkfs failed"; return 1; }
  # A fresh OSD on a busy machine sometimes sends its first mon command before it has the
  # cluster map (fsid 0, "wrong fsid") and exits during init; starting just the OSD again
  # gets past it (three whole-cluster attempts in a row failed that way under a build).
  local osd_ok=""
  for _ in 1 2 3 4 5; do
    if ceph-osd "${C[@]}" -i "$id" >>"$D/log/osd-start.log" 2>&1; then osd_ok=1; break; fi
    sleep 1
  done
  [ -n "$osd_ok" ] || { attempt_fail "osd did not start"; return 1; }
  for _ in $(seq 1 240); do
    timeout 10 ceph "${C[@]}" osd stat 2>/dev/null | grep -q "1 up" && break
    sleep 0.25
  done
  timeout 10 ceph "${C[@]}" osd stat | grep -q "1 up" || { attempt_fail "osd not up"; return 1; }
  radosgw "${C[@]}" -n client.rgw || { attempt_fail "radosgw did not start"; return 1; }
  for _ in $(seq 1 480); do
    curl -s -o /dev/null "http://127.0.0.1:$RGW_PORT/" && break
    sleep 0.25
  done
  curl -s -o /dev/null "http://127.0.0.1:$RGW_PORT/" || { attempt_fail "radosgw is not answering"; return 1; }
  radosgw-admin "${C[@]}" user create --uid=test --display-name=test --access-key="$ACCESS_KEY" \
    --secret-key="$SECRET_KEY" >/dev/null || { attempt_fail "user create failed"; return 1; }
  radosgw-admin "${C[@]}" caps add --uid=test --caps="roles=*" >/dev/null || { attempt_fail "caps add failed"; return 1; }
  radosgw-admin "${C[@]}" role create --role-name=S3Access --path=/ \
    --assume-role-policy-doc='{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"AWS":["arn:aws:iam:::user/test"]},"Action":["sts:AssumeRole"]}]}' \
    >/dev/null || { attempt_fail "role create failed"; return 1; }
  radosgw-admin "${C[@]}" role-policy put --role-name=S3Access --policy-name=S3All \
    --policy-doc='{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":["s3:*"],"Resource":"arn:aws:s3:::*"}]}' \
    >/dev/null || { attempt_fail "role policy failed"; return 1; }
  # The test bucket (curl signs with SigV4; the payload hash header is required by RGW).
  local code
  code=$(curl -s -o "$D/log/mkbucket.out" -w '%{http_code}' -X PUT --user "$ACCESS_KEY:$SECRET_KEY" \
    --aws-sigv4 "aws:amz:us-east-1:s3" -H "x-amz-content-sha256: UNSIGNED-PAYLOAD" \
    "http://127.0.0.1:$RGW_PORT/$BUCKET")
  [ "$code" = 200 ] || { attempt_fail "creating bucket $BUCKET: HTTP $code $(cat "$D/log/mkbucket.out")"; return 1; }
}

case "$cmd" in
  start) start ;;
  stop)
    stop_daemons
    rm -rf "$D"
    ;;
  env) print_env ;;
  *) fail "unknown command '$cmd' (start|stop|env)" ;;
esac
