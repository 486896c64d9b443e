#!/usr/bin/env bash
# mirror.sh: keep a bucket on one S3 endpoint in step with a bucket on
# another (between providers, or from AWS to a disaster-recovery site).
# The objects are streamed: ranged GETs from the source feed uploads to
# the destination, in bounded memory, never through the local disk.  When
# both buckets are on the same endpoint and account, leave the --source-*
# options out and ferry has the server copy them instead.
#
#   usage: mirror.sh [ferry options...]
#
# Each side has its own profile in ~/.aws/credentials (or the file named
# by AWS_SHARED_CREDENTIALS_FILE), for instance:
#
#   [aws-prod]
#   aws_access_key_id = ...
#   aws_secret_access_key = ...
#
#   [dr-site]
#   aws_access_key_id = ...
#   aws_secret_access_key = ...
#
# Every setting below can be overridden from the environment.  Extra
# arguments go to ferry, for instance --dry-run to see the plan first:
#
#   ./mirror.sh --dry-run
#
# Exit status: ferry's (0 in step, 1 some objects failed, 2 usage or
# configuration error, 3 aborted).
set -u

FERRY=${FERRY:-ferry}

# The source: a bucket (and optional prefix) on AWS.
SRC=${SRC:-s3://prod-archive/data}
SRC_ENDPOINT=${SRC_ENDPOINT:-https://s3.eu-west-1.amazonaws.com}
SRC_REGION=${SRC_REGION:-eu-west-1}
SRC_PROFILE=${SRC_PROFILE:-aws-prod}

# The destination: a bucket on another provider's endpoint.
DST=${DST:-s3://prod-archive-dr/data}
DST_ENDPOINT=${DST_ENDPOINT:-https://s3.dr.example.net}
DST_REGION=${DST_REGION:-us-east-1}
DST_PROFILE=${DST_PROFILE:-dr-site}

# Deletes: mirror them, but never more than 1% of the destination in one
# run without a human looking: beyond that, ferry still copies what
# changed, refuses all of the run's deletes and exits 3.  Rerun with
# --force once the deletes are known to be wanted.
MAX_DELETE=${MAX_DELETE:-1%}

"$FERRY" sync \
	--source-endpoint-url "$SRC_ENDPOINT" \
	--source-region "$SRC_REGION" \
	--source-profile "$SRC_PROFILE" \
	--endpoint-url "$DST_ENDPOINT" \
	--region "$DST_REGION" \
	--profile "$DST_PROFILE" \
	--delete --max-delete "$MAX_DELETE" \
	--jobs 32 --memory 1G \
	--json "$@" \
	"$SRC" "$DST" >mirror-events.jsonl
status=$?

# The last line is the summary; print it, and the errors if any.
grep '"type":"error"' mirror-events.jsonl | head -n 20 >&2
grep '"type":"summary"' mirror-events.jsonl | tail -n 1
case $status in
0) echo "mirror: in step" >&2 ;;
1) echo "mirror: some objects failed; run again to retry them" >&2 ;;
2) echo "mirror: usage or configuration error" >&2 ;;
3) echo "mirror: aborted (listing failed, access denied, or deletes refused)" >&2 ;;
esac
exit "$status"
