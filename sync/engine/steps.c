/*
 * steps.c: the steps a push, a pull and a mirror take alike, on what they
 * hold alike (run.h): the start and the end of a run, its loop on the
 * transfer engine, the output of a dry run, and the deletes gathered
 * during the merge.
 */
#include <errno.h>
#include <inttypes.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sync/engine/steps.h"

void
sync_run_init(struct sync_run *run, const struct sync_opts *o)
{
	run->o = o;
	run->rootfd = -1;
	output_init(&run->out, o);
	transfer_engine_init(&run->eng, &run->out, &run->counts, o);
}

ferry_err
sync_run_remote_open(struct sync_run *run)
{
	ferry_err e;

	if ((e = remote_new(&run->o->remote, &run->r)) != FERRY_OK)
		return e;
	remote_on_retry(run->r, output_retry, &run->out);
	remote_on_fallback(run->r, output_fallback, &run->out);
	remote_on_concur(run->r, output_concur, &run->out);
	output_concur_start(&run->out, run->r);
	return FERRY_OK;
}

ferry_err
sync_run_root_open(
    struct sync_run *run, const char *path, const char *what, char *root)
{
	if (realpath(path, root) == NULL)
		return ferry_fail(FERRY_EUSAGE, "%s folder '%s': %s", what,
		    path, strerror(errno));
	run->rootfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (run->rootfd < 0)
		return ferry_fail(FERRY_EUSAGE, "%s folder '%s': %s", what,
		    path, strerror(errno));
	return FERRY_OK;
}

ferry_err
sync_run_loop(
    struct sync_run *run, void *planner, ferry_err (*plan_next)(void *planner))
{
	output_expect(&run->out, run->o, run->m);
	run->eng.planned_all = &run->mg.done;
	run->eng.planner = planner;
	run->eng.plan_next = plan_next;
	return transfer_engine_run(&run->eng);
}

ferry_err
sync_run_plan(struct sync_run *run, int c, const struct merge_list *src,
    sync_run_planner *plan, struct plan_decision *d)
{
	struct plan_entry mine = {0}, listed = {0};
	struct manifest_remote rec;
	const struct manifest_remote *recp = NULL;
	ferry_err e;

	if (c <= 0 && src)
		merge_entry_listed(&src->obj, &mine);
	else if (c <= 0)
		merge_entry_local(&run->mg.lrec, &mine);
	if (c >= 0 && (e = merge_entry_recorded(run->m, &run->mg.remote.obj,
	                   &listed, &rec, &recp)) != FERRY_OK)
		return e;
	if (run->o->way == SYNC_WAY_PULL)
		plan(&listed, &mine, recp, &run->popts, d);
	else
		plan(&mine, &listed, recp, &run->popts, d);
	return FERRY_OK;
}

ferry_err
sync_run_advance(
    struct sync_run *run, int c, struct merge_list *src, int all_in_shard)
{
	struct merge *mg = &run->mg;
	ferry_err e = FERRY_OK;

	if (c <= 0 && src)
		e = merge_list_next(src, run->o, 0, &mg->nlocal);
	else if (c <= 0)
		e = merge_next_local(mg);
	if (e == FERRY_OK && c >= 0)
		e = merge_list_next(
		    &mg->remote, run->o, all_in_shard, &mg->nremote);
	return e;
}

ferry_err
sync_run_planned(struct sync_run *run, const char *type, const char *key,
    size_t keylen, uint64_t size, const char *reason,
    const struct plan_entry *src, const struct plan_entry *dst)
{
	size_t fulllen;
	char *full;

	if ((full = remote_key_join(run->loc.prefix, key, keylen, &fulllen)) ==
	    NULL)
		return ferry_fail(FERRY_ENOMEM, "out of memory");
	output_planned(&run->out, type, full, fulllen, size, reason, src, dst);
	free(full);
	return FERRY_OK;
}

ferry_err
sync_run_delete_add(struct sync_run *run, const char *key, size_t keylen,
    const void *rec, size_t reclen)
{
	uint32_t len = (uint32_t)keylen;

	if (run->deletes == NULL && (run->deletes = tmpfile()) == NULL)
		return ferry_fail(FERRY_ESYS,
		    "cannot create a temporary file: %s", strerror(errno));
	if (fwrite(&len, sizeof(len), 1, run->deletes) != 1 ||
	    fwrite(key, 1, keylen, run->deletes) != keylen ||
	    fwrite(rec, reclen, 1, run->deletes) != 1)
		return ferry_fail(FERRY_ESYS, "cannot write a temporary file");
	run->ndeletes++;
	return FERRY_OK;
}

int
sync_run_delete_next(
    struct sync_run *run, char *key, size_t *keylen, void *rec, size_t reclen)
{
	uint32_t len;

	if (run->ndeletes_read == run->ndeletes)
		return 0;
	if (fread(&len, sizeof(len), 1, run->deletes) != 1 ||
	    len > MANIFEST_KEY_MAX || fread(key, 1, len, run->deletes) != len ||
	    fread(rec, reclen, 1, run->deletes) != 1) {
		ferry_fail(FERRY_ESYS,
		    "cannot read back delete %" PRIu64 " of %" PRIu64
		    " from its temporary file: the deletes stop here",
		    run->ndeletes_read + 1, run->ndeletes);
		return -1;
	}
	key[len] = '\0';
	*keylen = len;
	run->ndeletes_read++;
	return 1;
}

/* Why the deletes may not run, or NULL. */
static const char *
guard(const struct sync_run *run, const struct sync_run_guard *g,
    uint64_t nfailed, uint64_t nsource, uint64_t ndest)
{
	if (run->scan_errors)
		return g->unread;
	if (nfailed)
		return g->failed;
	if (run->o->force)
		return NULL;
	if (nsource == 0)
		return g->empty;
	return sync_over_max_delete(
	    run->o, run->ndeletes - run->ndeletes_kept, ndest);
}

int
sync_run_deletes_allowed(struct sync_run *run, const struct sync_run_guard *g,
    uint64_t nfailed, uint64_t nsource, uint64_t ndest)
{
	const char *why;

	if (run->ndeletes == 0)
		return 0;
	/* a watcher's: an empty source (the mc#2373 case: a mount lost, a
	 * prefix emptied) holds them, --force or not, and the run goes on
	 * to its end; the watcher says so */
	if (run->o->ran && nsource == 0) {
		run->o->ran->held = run->ndeletes;
		return 0;
	}
	why = guard(run, g, nfailed, nsource, ndest);
	/* a write the stdio buffer held may fail only now */
	if (why == NULL && (fflush(run->deletes) != 0 || ferror(run->deletes)))
		why =
		    "the keys to delete could not be kept in a temporary file";
	if (sync_deletes_refused(&run->out, run->ndeletes, why, &run->fatal))
		return 0;
	rewind(run->deletes);
	run->ndeletes_read = 0;
	return 1;
}

void
sync_run_fatal(struct sync_run *run, ferry_err e)
{
	output_error(&run->out, NULL, 0, e, ferry_errmsg());
	if (run->r)
		transfer_engine_drain(&run->eng);
}

int
sync_run_status(const struct sync_run *run)
{
	if (run->fatal == EXIT_ABORTED)
		return EXIT_ABORTED;
	return run->counts.failed || run->fatal ? EXIT_PARTIAL : EXIT_SYNCED;
}

int
sync_run_finish(struct sync_run *run, ferry_err e, int status,
    const struct remote_stats *rs, int durable,
    void (*note)(struct manifest *m, int status))
{
	status = sync_damage_status(&run->out, run->m, e, status);
	if (run->m && note)
		note(run->m, status);
	if (run->m && (durable ? manifest_sync(run->m)
	                       : manifest_commit(run->m)) != FERRY_OK)
		sync_manifest_warn();
	status =
	    metrics_run_write(run->o, &run->out, &run->counts, run->m, status);
	output_summary(&run->out, &run->counts, rs, status);
	if (run->o->ran)
		run->o->ran->counts = run->counts;
	return status;
}

void
sync_run_close(struct sync_run *run)
{
	transfer_engine_clear(&run->eng);
	merge_close(&run->mg);
	manifest_close(run->m);
	remote_free(run->r);
	remote_loc_clear(&run->loc);
	if (run->deletes)
		fclose(run->deletes);
	if (run->rootfd >= 0)
		close(run->rootfd);
}
