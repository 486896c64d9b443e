/*
 * pullsource.c: what a pull checks of its source before it trusts an
 * empty listing: that the bucket answers before a new folder is made for
 * it, and that the location is not an object named where a folder was
 * meant.
 */
#include <string.h>

#include "sync/down/down.h"

/* Non-zero when name can go into a quoted --include pattern as is. */
static int
plain_name(const char *name, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strchr("'*?[]\\{}", name[i]) != NULL)
			return 0;
	return n > 0;
}

/* FERRY_EUSAGE: the location bucket/key[0..n) is an object. */
static ferry_err
named_object(const char *bucket, const char *key, size_t n)
{
	const char *slash = memrchr(key, '/', n);
	size_t dirlen = slash ? (size_t)(slash - key) + 1 : 0;
	const char *name = key + dirlen;
	size_t namelen = n - dirlen;

	if (!plain_name(name, namelen))
		return ferry_fail(FERRY_EUSAGE,
		    "s3://%s/%.*s is an object, not a folder: a pull copies "
		    "the objects under a prefix; pull its folder s3://%s/%.*s",
		    bucket, (int)n, key, bucket, (int)dirlen, key);
	return ferry_fail(FERRY_EUSAGE,
	    "s3://%s/%.*s is an object, not a folder: a pull copies the "
	    "objects under a prefix; pull its folder s3://%s/%.*s (with "
	    "--include '%.*s' --exclude '*' for this file alone)",
	    bucket, (int)n, key, bucket, (int)dirlen, key, (int)namelen, name);
}

ferry_err
pull_check_object(struct pull *p)
{
	size_t n = strlen(p->run.loc.prefix);
	struct remote_req *q;
	ferry_err e;

	/* filters and shards make empty runs of their own */
	if (n == 0 || p->run.o->filter != NULL || p->run.o->shard.count > 1)
		return FERRY_OK;
	/* the prefix without the '/' that parsing added or kept */
	if ((e = remote_head_object(p->run.r, p->run.loc.bucket,
	         p->run.loc.prefix, n - 1, NULL, &q)) != FERRY_OK)
		return e;
	e = remote_perform(p->run.r, q, 0);
	remote_req_free(q);
	/* not found, or not to be read: the listing said all there is */
	if (e != FERRY_OK)
		return FERRY_OK;
	return named_object(p->run.loc.bucket, p->run.loc.prefix, n - 1);
}

ferry_err
pull_list_first(struct pull *p)
{
	ferry_err e;

	/* an unsorted listing is sorted in the manifest, not open yet;
	 * so is the listing of a past time (--at); an inventory stands in
	 * for the listing */
	if (!remote_bucket_sorted(p->run.loc.bucket) ||
	    p->run.o->source_inventory || p->run.o->at_given)
		return FERRY_OK;
	e = merge_list_open(&p->run.mg.remote, p->run.o, NULL, MANIFEST_LISTED,
	    p->run.r, &p->run.loc);
	if (e == FERRY_OK)
		e = merge_list_next(
		    &p->run.mg.remote, p->run.o, 0, &p->run.mg.nremote);
	if (e == FERRY_OK && !p->run.mg.remote.have)
		e = pull_check_object(p);
	return e;
}
