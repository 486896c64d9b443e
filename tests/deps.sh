#!/bin/sh
# Checks that what ferry needs to build and test is installed, and any
# further Debian packages named as arguments (CI adds clang's).  Every
# tool a test uses is here (shellcheck, mandoc, man-db, systemd for
# systemd-analyze, python3-yaml, zsh and fish for the completions, procps
# for pgrep, strace, rclone, acl for setfacl and getfacl,
# python3-prometheus-client's parser of the metrics file...): a test whose tool is missing fails.  As root it
# installs what is missing from Debian's packages, in one apt-get run;
# otherwise it prints the exact apt-get line and fails.
set -u

PKGS="gcc make pkg-config libcurl4-openssl-dev libssl-dev libxxhash-dev \
liblmdb-dev libcjson-dev libexpat1-dev zlib1g-dev libcmocka-dev ceph-mon ceph-osd \
radosgw uuid-runtime swift-proxy swift-account swift-container swift-object \
python3-swift memcached eatmydata slurmctld slurmd slurm-client munge awscli \
python3 python3-jsonschema python3-yaml python3-kubernetes \
python3-prometheus-client curl strace \
util-linux iproute2 procps rclone acl shellcheck mandoc man-db systemd zsh fish $*"

missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null |
		grep -q 'install ok installed' || missing="$missing $p"
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
	echo "ferry: missing packages:$missing" >&2
	echo "Install them with:" >&2
	echo "  sudo apt-get install -y --no-install-recommends$missing" >&2
	exit 1
fi
echo "Installing:$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq || exit 1
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >/dev/null || exit 1
