#!/usr/bin/env bash
# The suite reaches loopback only, by construction: run.sh puts it in a
# network namespace with loopback alone, and lib.sh turns the instance
# metadata service and the container endpoints off, so a test without
# keys cannot reach 169.254.169.254.  Nothing here connects anywhere but
# loopback: refusals are shown by what is said before any connection.
. "$(dirname "$0")/lib.sh"

if [ "${FERRY_TEST_NETNS:-}" = 1 ]; then
	links=$(ip -o link show | awk -F': ' '{ print $2 }' | tr '\n' ' ')
	is "$links" "lo " "the suite's network namespace has loopback alone"
	routes=$(ip route show; ip -6 route show | grep -v '^::1 ')
	is "$routes" "" "... and no route off the machine"
else
	for i in 1 2; do
		_n=$((_n + 1))
		echo "ok $_n # skip not root: run.sh made no network namespace"
	done
fi

is "${AWS_EC2_METADATA_DISABLED:-}" true \
	"lib.sh turns the instance metadata service off"
is "${AWS_CONTAINER_CREDENTIALS_FULL_URI:-}${AWS_CONTAINER_CREDENTIALS_RELATIVE_URI:-}${AWS_EC2_METADATA_SERVICE_ENDPOINT:-}" "" \
	"... and leaves no container or metadata endpoint set"

# What a test that forgot its keys gets: a refusal, not a request.
out=$(env -u AWS_ACCESS_KEY_ID -u AWS_SECRET_ACCESS_KEY \
	AWS_CONFIG_FILE=/dev/null AWS_SHARED_CREDENTIALS_FILE=/dev/null \
	"$FERRY" ls "s3://nokeys-bucket/" 2>&1)
rc=$?
is "$rc" 3 "ferry with no keys in the suite: exit 3"
like "$out" "disabled by AWS_EC2_METADATA_DISABLED" \
	"... the metadata service is not asked"

# with_imds turns the service on for a fake of the test's own, on
# loopback only.
with_imds "http://169.254.169.254" true 2>/dev/null
is "$?" 99 "with_imds refuses an address off loopback, running nothing"
got=$(with_imds "http://127.0.0.1:9" sh -c \
	'echo "${AWS_EC2_METADATA_DISABLED:-on} $AWS_EC2_METADATA_SERVICE_ENDPOINT"')
is "$got" "on http://127.0.0.1:9" "... and turns it on at a loopback fake"
is "${AWS_EC2_METADATA_DISABLED:-}" true "... for that command alone"

done_testing
