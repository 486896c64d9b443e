/*
 * manifest.c: where a run's manifest lives: the folder of a pair of
 * sides, named by their identity (the shard and the plan part a worker
 * runs included), opened for the run.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sync/run/run.h"

/* A side's identity (at most 4096 bytes), " shard I/N" and " part I/N". */
#define DST_ID_MAX                                                             \
	(4096 + sizeof(" shard ") + SHARD_NAME_MAX + sizeof(" part ") +        \
	    PLANFILE_PART_MAX)

/* The identity of one side, as a run names it in its manifest. */
static ferry_err
side_id(const char *arg, const struct remote_opts *ro, char *out, size_t n)
{
	struct remote_loc loc = {0};
	struct remote *r = NULL;
	char real[PATH_MAX];
	ferry_err e;

	if (!remote_is_url(arg)) {
		if (realpath(arg, real) == NULL)
			return ferry_fail(FERRY_EUSAGE, "no folder '%s'", arg);
		snprintf(out, n, "%s", real);
		return FERRY_OK;
	}
	if ((e = remote_loc_parse(arg, &loc)) == FERRY_OK &&
	    (e = remote_new(ro, &r)) == FERRY_OK)
		snprintf(out, n, "s3://%s/%s @ %s", loc.bucket, loc.prefix,
		    remote_endpoint(r));
	remote_free(r);
	remote_loc_clear(&loc);
	return e;
}

/*
 * The destination as the manifest knows it: dst, followed for a sharded
 * run by " shard I/N", so that each shard has a folder of its own and a
 * shard's manifest is never taken for another's; likewise " part I/N"
 * for the apply of a part of a split plan, which runs beside the others.
 */
static void
dst_identity(const struct sync_opts *o, const char *dst, char *out, size_t n)
{
	const char *part = o->plan ? planfile_header(o->plan)->part : "";
	char name[SHARD_NAME_MAX];

	shard_name(&o->shard, name, sizeof(name));
	snprintf(out, n, "%s%s%s%s%s", dst, name[0] ? " shard " : "", name,
	    part[0] ? " part " : "", part);
}

void
sync_manifest_warn(void)
{
	log_warn("manifest: %s", ferry_errmsg());
}

ferry_err
sync_manifest_open(const struct sync_opts *o, const char *src, const char *dst,
    struct manifest **out)
{
	char dir[PATH_MAX], id[DST_ID_MAX], name[SHARD_NAME_MAX];
	const char *where = o->manifest_dir;
	ferry_err e;

	*out = NULL;
	dst_identity(o, dst, id, sizeof(id));
	if (where == NULL) {
		if ((e = manifest_default_dir(src, id, dir, sizeof(dir))) !=
		    FERRY_OK)
			return e;
		where = dir;
	}
	if ((e = manifest_open(where, src, id,
	         o->rebuild_manifest ? MANIFEST_REBUILD : 0, out)) != FERRY_OK)
		return e;
	/* each periodic commit on disk, not only the last */
	if (o->fsync && (e = manifest_set_durable(*out)) != FERRY_OK) {
		manifest_close(*out);
		*out = NULL;
		return e;
	}
	shard_name(&o->shard, name, sizeof(name));
	if (name[0] == '\0' ||
	    (e = manifest_meta_put(*out, "shard", name)) == FERRY_OK)
		return FERRY_OK;
	manifest_close(*out);
	*out = NULL;
	return e;
}

ferry_err
sync_manifest_find(const struct sync_opts *o, char *dir, size_t n)
{
	char src[4096], dst[4096], id[DST_ID_MAX];
	ferry_err e;

	if (o->manifest_dir) {
		snprintf(dir, n, "%s", o->manifest_dir);
		return FERRY_OK;
	}
	if ((e = side_id(o->src,
	         remote_is_url(o->dst) ? &o->src_remote : &o->remote, src,
	         sizeof(src))) != FERRY_OK ||
	    (e = side_id(o->dst, &o->remote, dst, sizeof(dst))) != FERRY_OK)
		return e;
	dst_identity(o, dst, id, sizeof(id));
	return manifest_default_dir(src, id, dir, n);
}
