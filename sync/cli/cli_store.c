/*
 * cli_store.c: the options of where and how objects are stored (storage
 * class, encryption, ACL, tags, metadata) and of bandwidth and courtesy
 * (--bwlimit, --no-sign-request, --request-payer).
 */
#include <getopt.h>
#include <string.h>

#include "sync/cli/cli_store.h"

const char cli_store_help[] =
    "How objects are stored (push and mirror):\n"
    "  --storage-class CLASS    STANDARD, STANDARD_IA, GLACIER_IR, ...\n"
    "  --sse AES256|aws:kms     server-side encryption\n"
    "  --sse-kms-key-id ID      the KMS key for --sse aws:kms\n"
    "  --sse-c-key FILE|env:NAME  a customer's key (32 bytes or their\n"
    "                           base64), over https only; never shown\n"
    "  --acl ACL                a canned ACL (private, public-read, ...)\n"
    "  --tags K=V[,K=V...]      the objects' tags\n"
    "  --cache-control VALUE  --content-type TYPE\n"
    "  --metadata K=V           user metadata (repeatable)\n"
    "  --metadata-directive COPY|REPLACE\n"
    "                           a mirror carries the source's metadata\n"
    "                           and tags (COPY) or the flags' (REPLACE)\n"
    "Bandwidth and courtesy:\n"
    "  --bwlimit RATE|TIMETABLE  e.g. 2M, or '08:00,512K 19:00,off'\n"
    "  --no-sign-request        unsigned requests, for public buckets\n"
    "  --request-payer          the requester pays, for such buckets\n"
    "\n";

static ferry_err
take_directive(struct sync_opts *o, const char *arg)
{
	if (strcmp(arg, "COPY") == 0 || strcmp(arg, "REPLACE") == 0) {
		o->store.replace = arg[0] == 'R';
		return FERRY_OK;
	}
	return ferry_fail(
	    FERRY_EUSAGE, "--metadata-directive: COPY or REPLACE");
}

static ferry_err
take_payer(struct sync_opts *o, const char *arg)
{
	if (arg != NULL && strcmp(arg, "requester") != 0)
		return ferry_fail(
		    FERRY_EUSAGE, "--request-payer: only 'requester'");
	o->remote.request_payer = 1;
	return FERRY_OK;
}

ferry_err
cli_store_take(struct sync_opts *o, int c, const char *arg)
{
	switch (c) {
	case OPT_STORAGE_CLASS:
		o->store.storage_class = arg;
		return FERRY_OK;
	case OPT_SSE:
		o->store.sse = arg;
		return FERRY_OK;
	case OPT_SSE_KMS_KEY_ID:
		o->store.sse_kms_key_id = arg;
		return FERRY_OK;
	case OPT_SSE_C_KEY:
		o->remote.sse_c_key = arg;
		return FERRY_OK;
	case OPT_ACL:
		o->store.acl = arg;
		return FERRY_OK;
	case OPT_TAGS:
		return remote_store_tags(&o->store, arg);
	case OPT_CACHE_CONTROL:
		o->store.cache_control = arg;
		return FERRY_OK;
	case OPT_CONTENT_TYPE:
		o->store.content_type = arg;
		return FERRY_OK;
	case OPT_METADATA:
		return remote_store_meta(&o->store, arg);
	case OPT_METADATA_DIRECTIVE:
		return take_directive(o, arg);
	case OPT_BWLIMIT:
		return remote_bwlimit_parse(arg, &o->bwlimit);
	case OPT_NO_SIGN_REQUEST:
		o->remote.no_sign = 1;
		return FERRY_OK;
	case OPT_REQUEST_PAYER:
		return take_payer(o, arg);
	}
	return ferry_fail(FERRY_EUSAGE, "unknown option");
}

ferry_err
cli_store_check(struct sync_opts *o)
{
	int mirror = o->way == SYNC_WAY_MIRROR;
	ferry_err e;

	if ((e = remote_store_check(&o->store)) != FERRY_OK)
		return e;
	if (o->store.sse && o->remote.sse_c_key)
		return ferry_fail(FERRY_EUSAGE,
		    "--sse and --sse-c-key: one kind of encryption at a time");
	/* a mirror that would drop what it was told to set says so */
	if (mirror && remote_store_sets_meta(&o->store) && !o->store.replace)
		return ferry_fail(FERRY_EUSAGE,
		    "a mirror carries the source's metadata and tags: "
		    "--metadata-directive REPLACE to set them with --tags, "
		    "--metadata, --cache-control or --content-type");
	if (o->bwlimit.n > 0)
		o->remote.bwlimit = &o->bwlimit;
	/* a mirror reads a public bucket unsigned, and writes as itself */
	o->src_remote.no_sign = o->remote.no_sign;
	if (mirror)
		o->remote.no_sign = 0;
	o->src_remote.request_payer = o->remote.request_payer;
	o->src_remote.sse_c_key = o->remote.sse_c_key;
	o->src_remote.bwlimit = o->remote.bwlimit;
	return FERRY_OK;
}
