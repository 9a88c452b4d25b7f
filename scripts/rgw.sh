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

SERVICE=rgw
# shellcheck source=scripts/lib/service.sh
source "$(dirname "$0")/lib/service.sh"
service_init "$@"
SERVICE_LOGS='log/*.log'
RGW_PORT=${RGW_PORT:-7480}
MON_PORT=${MON_PORT:-6789}
ACCESS_KEY=${S3_ACCESS_KEY:-lance-test-key}
SECRET_KEY=${S3_SECRET_KEY:-lance-test-secret}
BUCKET=${S3_BUCKET:-lance-test}
C=(-c "$D/ceph.conf")

# Inside one start attempt: report and return failure, so start() can retry from scratch.
attempt_fail() {
  log "$*"
  tail_logs 10
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
  local n
  for n in client.rgw osd.0 mon.a; do
    # Only our own daemons: the pid must still run a ceph binary.
    term_pid_file "$D/run/$n.pid" 'radosgw|ceph-osd|ceph-mon'
  done
  # Daemons whose pid files are gone (a wiped directory) still name our ceph.conf.
  term_matching "(radosgw|ceph-osd|ceph-mon) .*$D/ceph.conf"
  stop_killed
}

mon_up() { timeout 10 ceph "${C[@]}" mon stat >/dev/null 2>&1; }
osd_up() { timeout 10 ceph "${C[@]}" osd stat 2>/dev/null | grep -q "1 up"; }
rgw_up() { curl -s -o /dev/null "http://127.0.0.1:$RGW_PORT/"; }

start() {
  require_commands ceph-mon ceph-osd radosgw radosgw-admin monmaptool ceph-authtool uuidgen curl
  wipe_stale "a cluster" stop_daemons
  require_free_port "$RGW_PORT" "another RGW? set RGW_PORT"
  require_free_port "$MON_PORT" "another ceph-mon? set MON_PORT"
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

start_osd() { ceph-osd "${C[@]}" -i "$1" >>"$D/log/osd-start.log" 2>&1; }

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
  wait_for 120 0.25 mon_up || { attempt_fail "mon is not answering"; return 1; }
  local osd_uuid id
  osd_uuid=$(uuidgen)
  id=$(timeout 60 ceph "${C[@]}" osd new "$osd_uuid") || { attempt_fail "osd new failed"; return 1; }
  ceph-osd "${C[@]}" -i "$id" --mkfs --osd-uuid "$osd_uuid" >"$D/log/osd-mkfs.log" 2>&1 || { attempt_fail "osd mkfs failed"; return 1; }
  # A fresh OSD on a busy machine sometimes sends its first mon command before it has the
  # cluster map (fsid 0, "wrong fsid") and exits during init; starting just the OSD again
  # gets past it (three whole-cluster attempts in a row failed that way under a build).
  wait_for 5 1 start_osd "$id" || { attempt_fail "osd did not start"; return 1; }
  wait_for 240 0.25 osd_up || osd_up || { attempt_fail "osd not up"; return 1; }
  radosgw "${C[@]}" -n client.rgw || { attempt_fail "radosgw did not start"; return 1; }
  wait_for 480 0.25 rgw_up || rgw_up || { attempt_fail "radosgw is not answering"; return 1; }
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

service_main stop_daemons print_env
