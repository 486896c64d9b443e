/*
 * merge.h: what a push, a pull and a mirror share around their merge-join
 * of two streams sorted by key: the scanned tree (the manifest's local
 * records) and a bucket listing, or two listings; the scan that fills the
 * manifest; the guard on the deletes gathered on the way.  Private to
 * sync/.
 */
#ifndef FERRY_MERGE_H
#define FERRY_MERGE_H

#include "sync/run/run.h"

struct output;
struct sync_counts;
struct link_pairs;

/*
 * A listing, read one object ahead: from the server as it lists, or, for a
 * bucket that lists unsorted, from the manifest table it was put into.
 */
struct merge_list {
	struct remote_list *list;
	struct manifest_iter *it; /* the sorted copy, or NULL */
	struct manifest *m;       /* whose table it is, to empty at close */
	enum manifest_table table;
	struct manifest_remote rec; /* what obj points into, from it */
	int have;                   /* obj is the next object; 0 at the end */
	struct remote_obj obj;
	/* read from an inventory: its creation, seconds; 0: listed */
	int64_t inventory_time;
	/* a pull with --links: the keys taken, for a link's twin */
	struct link_pairs *pairs;
};

/* The state of a merge of the scanned tree with a listing. */
struct merge {
	struct manifest_iter *it;
	int lhave; /* lkey and lrec are the next file; 0 at the end */
	const char *lkey;
	size_t lkeylen;
	struct manifest_local lrec;
	struct merge_list remote;
	int done;                 /* nothing left to plan */
	uint64_t nlocal, nremote; /* the keys each side counts, for the guard */
};

/*
 * Opens mg's streams: the local records of m and the listing of loc
 * through r, and reads the first of each.  all_in_shard as for
 * merge_list_next(), for the listing.  A listing already open in
 * mg->remote (its first object read) is kept.  merge_close() frees them.
 */
ferry_err merge_open(struct merge *mg, const struct sync_opts *o,
    struct manifest *m, struct remote *r, const struct remote_loc *loc,
    int all_in_shard) FERRY_WUR;
void merge_close(struct merge *mg);
/*
 * Opens l on the listing of loc through r: of the keys in o's shard's
 * range (a range shard), cut at first into ranges listed at once where
 * m's record of the last listing, or of the scanned tree, had its keys
 * (m may be NULL: the listing then cuts itself as its pages come).  A
 * listing m knows small is never cut.  A bucket that lists unsorted
 * (remote_bucket_sorted()) is listed whole into m's table t (emptied
 * first), to be read from there in key order: a key listed twice is then
 * FERRY_EPARSE.  merge_list_close() frees l, before m is closed.
 */
ferry_err merge_list_open(struct merge_list *l, const struct sync_opts *o,
    struct manifest *m, enum manifest_table t, struct remote *r,
    const struct remote_loc *loc) FERRY_WUR;
void merge_list_close(struct merge_list *l);
/*
 * merge_list_open() for a run's source; with --source-inventory (a pull's
 * or a mirror's) l is filled from the inventory instead, through r, into
 * m's table t, the source not listed (mergeinv.c); with --at, from the
 * source's versions as they were then (merge_list_open_at()).
 */
ferry_err merge_source_open(struct merge_list *l, const struct sync_opts *o,
    struct manifest *m, enum manifest_table t, struct remote *r,
    const struct remote_loc *loc) FERRY_WUR;
/* Limits the deletes of po to what the inventory of src could see. */
void merge_plan_inventory(struct plan_opts *po, const struct merge_list *src);
/*
 * The same for a listing of loc as it was at the time at (seconds since
 * the epoch; pullat.c): of each key, the newest version listed at or
 * before that time, unless it is a delete marker; read back from m's
 * table t, each object naming its version in obj.version_id.
 */
ferry_err merge_list_open_at(struct merge_list *l, struct manifest *m,
    enum manifest_table t, struct remote *r, const struct remote_loc *loc,
    int64_t at) FERRY_WUR;
/* Advances the local side, counting the file in mg->nlocal. */
ferry_err merge_next_local(struct merge *mg) FERRY_WUR;
/*
 * Advances l past the objects the run does not want (filter, shard),
 * adding one to *count for each it wants or, with all_in_shard, for each
 * in the run's shard, excluded or not.
 */
ferry_err merge_list_next(struct merge_list *l, const struct sync_opts *o,
    int all_in_shard, uint64_t *count) FERRY_WUR;
/*
 * Which side's next key comes first, into *c: < 0 the local one, > 0 the
 * listed one, 0 the same key.  Returns 0, with mg->done set, when both
 * sides are at their end.
 */
int merge_head(struct merge *mg, int *c);
/* The same with the listing src (a mirror's source) as the local side. */
int merge_head_lists(struct merge *mg, const struct merge_list *src, int *c);

/* The plan's view of a scanned file, and of a listed object. */
void merge_entry_local(const struct manifest_local *l, struct plan_entry *e);
void merge_entry_listed(const struct remote_obj *o, struct plan_entry *e);
/*
 * merge_entry_listed(), and the manifest's record of the listed object o
 * into *rec: *recp is rec, or NULL when there is none.
 */
ferry_err merge_entry_recorded(struct manifest *m, const struct remote_obj *o,
    struct plan_entry *e, struct manifest_remote *rec,
    const struct manifest_remote **recp) FERRY_WUR;

/* The options of the planner for a run of o. */
void merge_plan_opts(struct plan_opts *po, const struct sync_opts *o);
/*
 * Scans the tree at rootfd into m, as o asks (--checksum, filter, shard),
 * and commits.  Each file that cannot be read is reported to out and
 * counted in c->failed and *errors.
 */
ferry_err merge_scan(const struct sync_opts *o, struct manifest *m, int rootfd,
    struct output *out, struct sync_counts *c, uint64_t *errors) FERRY_WUR;

/* Why ndeletes of the total keys of a side pass --max-delete, or NULL. */
const char *sync_over_max_delete(
    const struct sync_opts *o, uint64_t ndeletes, uint64_t total);
/*
 * Non-zero when why, the reason the n gathered deletes may not run, is
 * set: then reports it and sets *fatal to EXIT_ABORTED.
 */
int sync_deletes_refused(
    struct output *out, uint64_t n, const char *why, int *fatal);

#endif
