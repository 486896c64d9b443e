/*
 * watch.c: sync --watch (watch.h).  Every run the watcher starts is a
 * whole run (push, pull or mirror) with the warm manifest: a push's scan
 * reads again only the files whose size or mtime moved, and its merge
 * decides each key as a one-off run does (filters, --delete and its
 * guard, metadata, links).  Events are hints of when to run, never of
 * what: one lost (an overflow, a folder beyond the watch limit) costs no
 * change, only its promptness, and the full run it calls for is said.
 * A bucket sends none: its runs come every --watch-interval (source.h),
 * through the same loop.
 *
 * A window of events is run once it has been quiet for the settle time,
 * per path: a file being written (created or modified, not yet closed:
 * writing.h) keeps the window neither open nor busy, and a run leaves it
 * out (a hold: filter_skip_paths()) until its close, until its writes
 * have been still for the settle time (a log kept open), or, once it has
 * been written for WATCH_SETTLE_CAP settle times, as it is then; a close
 * needs no settle time, but is run one settle time after the window
 * opened at the earliest, with the files closed beside it.  The source
 * folder gone holds every run, and a source side with nothing (a folder,
 * a prefix) holds the deletes, so that a lost mount, a folder moved away
 * or a prefix emptied never empties the destination.
 *
 * Under a service manager (notify.c), the watcher says READY=1 once its
 * first run has ended, what it does in STATUS= lines, and pings its
 * watchdog from the loop that waits, never from a run.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sync/watch/notify.h"
#include "sync/watch/reload.h"
#include "sync/watch/source.h"
#include "sync/watch/tree.h"
#include "sync/watch/watch.h"
#include "sync/watch/writing.h"

#define NS 1000000000LL
/* a "watch" heartbeat line this often (seconds) */
#define WATCH_BEAT_S 10
/* a window still busy after this many settle times is run anyway */
#define WATCH_SETTLE_CAP 10

/* The first SIGTERM or SIGINT: the watcher ends after the run going on. */
static volatile sig_atomic_t stop_sig;
/* SIGHUP: the filter files are read again before the next run. */
static volatile sig_atomic_t hup_sig;

static void
on_stop(int sig)
{
	/* a second one stops that run at its next step */
	if (stop_sig)
		ferry_interrupted = sig;
	stop_sig = sig;
}

static void
on_hup(int sig)
{
	hup_sig = sig;
}

static void
catch_stop(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sa.sa_handler = on_hup;
	sigaction(SIGHUP, &sa, NULL);
}

struct watcher {
	const struct sync_opts *o;
	struct watch_tree *tree;   /* NULL: no watches, a periodic sync */
	char root[PATH_MAX];       /* the source folder, real path */
	struct stat root_st;       /* what it was when the watcher began */
	char mdir[PATH_MAX];       /* the manifest's folder */
	int lockfd;                /* the watcher's lock in mdir, or -1 */
	int quit;                  /* an exit status that ends the watcher */
	int gone;                  /* the source folder is gone: all held */
	int64_t first_ns, last_ns; /* the window of events not run, or 0 */
	uint64_t pending;          /* its events */
	const char *full;          /* why it calls for a full run, or NULL */
	/* last_ns is the window's last event that waits a settle time
	 * (neither a write nor a close), or its first; the writes of the
	 * files being written have their own times */
	struct watch_writing *writing;
	int64_t rescan_ns, beat_ns, poll_ns, retry_ns;
	int64_t backoff_s;
	uint64_t runs;
	uint64_t held;           /* files the run going on leaves out */
	int unfollowed;          /* the set of files written was full: said */
	uint64_t seen;           /* events read, for test_overflow */
	unsigned test_overflow;  /* FERRY_WATCH_TEST_OVERFLOW: see take_news */
	int status;              /* the last run's, or -1 */
	struct sync_counts last; /* what it did */
	struct filter *filters;  /* read again on SIGHUP, or NULL: o's */
	/* --max-delete N counts per hour too: the deletes of this hour */
	int64_t hour_ns;
	uint64_t hour_deleted;
	/* what it does, for its service manager and progress line */
	struct watch_notify *notify;
	int64_t ping_ns; /* the next watchdog ping, or INT64_MAX */
	int progress;    /* a progress line is shown */
	char doing[160]; /* "idle", "running: why", "held: why" */
	struct sync_watching shown;
};

/*
 * Tells the service manager (lines: "READY=1", "STOPPING=1", or NULL)
 * and the progress line what the watcher does.
 */
static void
show(struct watcher *w, const char *lines)
{
	char status[256];

	w->shown.pending = w->pending;
	snprintf(status, sizeof(status), "%s, %llu pending, %llu sent",
	    w->doing, (unsigned long long)w->pending,
	    (unsigned long long)w->shown.sent);
	w->ping_ns = watch_notify_send(w->notify, lines, status, now_mono_ns());
	if (w->progress)
		output_watch_line(status);
}

/* During a run: the watchdog's ping when it is due (sync_watching). */
static void
tick(void *arg)
{
	struct watcher *w = arg;
	int64_t now = now_mono_ns();

	if (now >= w->ping_ns)
		w->ping_ns = watch_notify_send(w->notify, NULL, NULL, now);
}

/* Writes a "watch" line with --json; the text, when any, on stderr. */
static void
tell(struct watcher *w, const char *event, const char *reason, int warn)
{
	struct output_watch ow = {event, reason, w->pending, w->runs,
	    w->tree ? watch_tree_count(w->tree) : 0, w->status, w->shown.sent,
	    w->held};

	output_watch(w->o->json, &ow);
	/* a line of its own, not after the watcher's line */
	if (reason && w->progress)
		output_watch_line(NULL);
	if (reason && warn)
		log_warn("watch: %s", reason);
	else if (reason)
		log_info("watch: %s", reason);
	if (strcmp(event, "run") == 0 || strcmp(event, "held") == 0) {
		snprintf(w->doing, sizeof(w->doing), "%s: %s",
		    event[0] == 'r' ? "running" : "held", reason);
		show(w, NULL);
	}
}

/*
 * Takes the watcher's lock (watch.lock beside the manifest), which a
 * second watcher of the pair finds held: FERRY_EBUSY.  FERRY_ENOTFOUND
 * while the manifest's folder does not exist yet (before the first run).
 */
static ferry_err
take_lock(struct watcher *w)
{
	char path[PATH_MAX + 16];
	ferry_err e;

	if (w->lockfd >= 0)
		return FERRY_OK;
	if ((e = watch_source_lockable(w->o)) != FERRY_OK ||
	    (e = sync_manifest_find(w->o, w->mdir, sizeof(w->mdir))) !=
	        FERRY_OK)
		return e;
	snprintf(path, sizeof(path), "%s/watch.lock", w->mdir);
	if ((w->lockfd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600)) < 0)
		return errno == ENOENT ? FERRY_ENOTFOUND
		                       : ferry_fail(FERRY_ESYS, "%s: %s", path,
		                             strerror(errno));
	if (flock(w->lockfd, LOCK_EX | LOCK_NB) == 0)
		return FERRY_OK;
	close(w->lockfd);
	w->lockfd = -1;
	return ferry_fail(FERRY_EBUSY,
	    "another ferry sync --watch keeps this pair in step (%s)", path);
}

/*
 * Takes the lock a run could not leave a folder for (a pull's first runs
 * failed before its destination was made); another watcher of the pair
 * that took it meanwhile ends this one, as at its start.
 */
static void
lock_late(struct watcher *w)
{
	ferry_err e;

	if (w->lockfd >= 0 || (e = take_lock(w)) == FERRY_OK ||
	    e == FERRY_ENOTFOUND)
		return;
	output_failure(w->o->json, e);
	w->quit = sync_exit_for(e);
}

/* The manifest's folder as an absolute path, for the tree to leave out. */
static void
manifest_skip(struct watcher *w, char *out, size_t n)
{
	char real[PATH_MAX], cwd[PATH_MAX];

	out[0] = '\0';
	if (sync_manifest_find(w->o, w->mdir, sizeof(w->mdir)) != FERRY_OK)
		return;
	if (realpath(w->mdir, real) != NULL)
		snprintf(out, n, "%s", real);
	else if (w->mdir[0] == '/')
		snprintf(out, n, "%s", w->mdir);
	else if (getcwd(cwd, sizeof(cwd)) == NULL ||
	         snprintf(out, n, "%s/%s", cwd, w->mdir) >= (int)n)
		out[0] = '\0';
}

/* Sets the watches up, or says why there are none: a periodic sync. */
static void
watch_start(struct watcher *w)
{
	char skip[PATH_MAX];
	ferry_err e;

	if (watch_source_polled(w->o)) {
		watch_source_polling(w->o, skip, sizeof(skip));
		tell(w, "watching", skip, 0);
		return;
	}
	manifest_skip(w, skip, sizeof(skip));
	e = watch_tree_open(w->root, skip[0] ? skip : NULL, &w->tree);
	if (e != FERRY_OK) {
		tell(w, "watching", ferry_errmsg(), 1);
		log_warn("watch: no watches: a full run every %lld s",
		    (long long)watch_source_period(w->o));
		return;
	}
	if (watch_tree_limited(w->tree)) {
		tell(w, "watching",
		    "the inotify watch limit was hit "
		    "(fs.inotify.max_user_watches): folders beyond it are "
		    "synced by a full run every 60 s",
		    1);
		return;
	}
	tell(w, "watching", NULL, 0);
}

/* Whether the source folder is there; a new one in its place is taken. */
static int
source_here(struct watcher *w)
{
	struct stat st;

	if (stat(w->root, &st) != 0 || !S_ISDIR(st.st_mode))
		return 0;
	if (st.st_dev != w->root_st.st_dev || st.st_ino != w->root_st.st_ino) {
		w->root_st = st;
		watch_tree_close(w->tree);
		w->tree = NULL;
		watch_start(w);
	}
	return 1;
}

/* After a run: when the next is due. */
static void
after_run(struct watcher *w, int64_t now)
{
	char why[96];

	w->rescan_ns = now + w->o->watch_rescan * NS;
	w->poll_ns = now + watch_source_period(w->o) * NS;
	if (w->status == EXIT_SYNCED || stop_sig) {
		w->retry_ns = 0;
		w->backoff_s = 0;
		return;
	}
	/* a run that changed the destination may have cleared what held it
	 * (the delete guard counts the destination): the next comes soon */
	if (w->last.uploaded + w->last.downloaded + w->last.copied +
	        w->last.deleted + w->last.metadata >
	    0)
		w->backoff_s = 0;
	w->backoff_s = watch_source_backoff(w->o, w->backoff_s);
	w->retry_ns = now + w->backoff_s * NS;
	/* a poll is no sooner than the retry */
	if (w->poll_ns < w->retry_ns)
		w->poll_ns = w->retry_ns;
	snprintf(why, sizeof(why), "%s: again in %lld s",
	    w->status == EXIT_BUSY ? "another run holds the manifest"
	                           : "the run did not end synced",
	    (long long)w->backoff_s);
	tell(w, "held", why, 1);
}

/*
 * --max-delete N (a count) holds per hour as well as per run: a run may
 * delete what the hour has left of N, or its deletes are refused as over
 * --max-delete.  A percentage is of each run's destination.
 */
static void
hour_budget(struct watcher *w, struct sync_opts *ro)
{
	int64_t now = now_mono_ns();

	if (w->hour_ns == 0 || now - w->hour_ns >= 3600 * NS) {
		w->hour_ns = now;
		w->hour_deleted = 0;
	}
	if (ro->max_delete_pct >= 0 || ro->force)
		return;
	ro->max_delete = w->hour_deleted >= w->o->max_delete
	                     ? 0
	                     : w->o->max_delete - w->hour_deleted;
}

/*
 * One whole run of ro with the filters in use: its status and counts
 * kept, its deletes held from an empty source said.
 */
static void
run_whole(struct watcher *w, struct sync_opts *ro)
{
	struct sync_ran ran;
	char held[160];

	memset(&ran, 0, sizeof(ran));
	if (w->filters)
		ro->filter = w->filters;
	if (w->progress)
		output_watch_line(NULL);
	ro->watching = &w->shown;
	ro->ran = &ran;
	w->status = watch_source_run(ro);
	w->runs++;
	w->last = ran.counts;
	w->hour_deleted += ran.counts.deleted;
	w->shown.sent += w->last.uploaded + w->last.copied + w->last.linked;
	w->pending = 0;
	ro->ran = NULL;
	ro->watching = NULL;
	snprintf(w->doing, sizeof(w->doing), "idle");
	if (ran.held) {
		watch_source_held(w->o, ran.held, held, sizeof(held));
		tell(w, "held", held, 1);
	}
	show(w, NULL);
}

/*
 * Whether the file being written at e is for a run at now to send: its
 * writes still for the settle time (size and mtime stable), or written
 * for WATCH_SETTLE_CAP settle times, to be sent as it is.
 */
static int
written_ready(
    const struct watcher *w, const struct watch_written *e, int64_t now)
{
	int64_t settle = w->o->watch_settle * NS;

	return now - e->last_ns >= settle ||
	       now - e->first_ns >= WATCH_SETTLE_CAP * settle;
}

/* Whether some file being written is for a run at now to send. */
static int
writing_ready(struct watcher *w, int64_t now)
{
	size_t i;

	for (i = 0; i < watch_writing_count(w->writing); i++)
		if (written_ready(w, watch_writing_at(w->writing, i), now))
			return 1;
	return 0;
}

/*
 * What a run at now leaves out: the files still being written, into
 * *hold (the caller's, NULL for none; w->held counts them).  Those it
 * sends leave the set, but one written for the cap, which stays, its
 * next cap counted from now.  Out of memory, nothing is held: the run
 * sends every file as it is, as a run before holds did.
 */
static void
hold_make(struct watcher *w, int64_t now, struct filter **hold)
{
	size_t n = watch_writing_count(w->writing), i = 0, k = 0;
	struct watch_written *e;
	const char **paths;

	*hold = NULL;
	w->held = 0;
	if (n == 0 || (paths = malloc(n * sizeof(*paths))) == NULL)
		return;
	while ((e = watch_writing_at(w->writing, i)) != NULL) {
		if (!written_ready(w, e, now)) {
			paths[k++] = e->path;
			i++;
		} else if (now - e->last_ns < w->o->watch_settle * NS) {
			e->first_ns = now;
			i++;
		} else
			watch_writing_drop(w->writing, i);
	}
	if (k > 0 && ((*hold = filter_new()) == NULL ||
	                 filter_skip_paths(*hold, paths, k) != FERRY_OK)) {
		log_warn("watch: no memory to hold the files being written: "
		         "sent as they are");
		filter_free(*hold);
		*hold = NULL;
		k = 0;
	}
	w->held = k;
	free(paths);
}

static void read_events(struct watcher *w);

/*
 * A whole run, held where the source folder is gone; but for the
 * periodic full run (whole), one that leaves out the files still being
 * written.
 */
static void
run_once(struct watcher *w, const char *why, int whole)
{
	struct sync_opts ro = *w->o;
	struct filter *hold = NULL;
	const char *full;
	char told[256];

	if (!watch_source_polled(w->o) && !source_here(w)) {
		if (!w->gone)
			tell(w, "held",
			    "the source folder is gone: no run and no delete "
			    "until it is back",
			    1);
		w->gone = 1;
		w->retry_ns = now_mono_ns() + w->o->watch_settle * NS;
		return;
	}
	if (w->gone)
		why = "the source folder is back";
	w->gone = 0;
	hour_budget(w, &ro);
	/* the closes still queued end their files' writes: none held back
	 * for want of reading them; events lost among them are said */
	full = w->full;
	read_events(w);
	if (w->full != NULL && full == NULL)
		why = w->full;
	w->held = 0;
	if (!whole)
		hold_make(w, now_mono_ns(), &hold);
	ro.hold = hold;
	if (w->held > 0) {
		snprintf(told, sizeof(told),
		    "%s; %llu file%s being written held back", why,
		    (unsigned long long)w->held, w->held == 1 ? "" : "s");
		why = told;
	}
	tell(w, "run", why, w->full != NULL);
	w->first_ns = w->last_ns = 0;
	w->full = NULL;
	run_whole(w, &ro);
	filter_free(hold);
	w->held = 0;
	/* its lines whole, as they happen, for whoever follows them */
	fflush(stdout);
	lock_late(w);
	after_run(w, now_mono_ns());
}

/*
 * Takes what a read of the events says.  FERRY_WATCH_TEST_OVERFLOW=N
 * (for the tests only) takes each read whose events pass another N
 * events in all for an overflow, as a queue too small would make it:
 * counted in events, not reads, a given set of changes makes as many
 * however the machine's load batches them into reads.
 */
static void
take_news(struct watcher *w, const struct watch_news *n, int64_t now)
{
	const char *full = n->full;
	uint64_t before = w->seen;

	w->seen += n->events;
	if (w->test_overflow &&
	    w->seen / w->test_overflow > before / w->test_overflow)
		full = "the inotify queue overflowed (simulated: "
		       "FERRY_WATCH_TEST_OVERFLOW)";
	if (full) {
		w->full = full;
		/* folders made while events were lost need their watches */
		if (watch_tree_reset(w->tree) != FERRY_OK) {
			tell(w, "watching", ferry_errmsg(), 1);
			watch_tree_close(w->tree);
			w->tree = NULL;
		}
	}
	if (n->limit && !w->full)
		w->full = "the inotify watch limit was hit "
		          "(fs.inotify.max_user_watches)";
	if (n->root_gone) {
		watch_tree_close(w->tree);
		w->tree = NULL;
	}
	w->pending += n->events;
	if (n->unfollowed && !w->unfollowed)
		log_info("watch: more than %d files are being written: the "
		         "writes of the others wait for the whole window, as "
		         "other events do (nothing is lost, only promptness)",
		    WATCH_WRITING_MAX);
	w->unfollowed = n->unfollowed ||
	                watch_writing_count(w->writing) == WATCH_WRITING_MAX;
	/* the writes of files being written have their own times */
	if (n->closed + n->settling == 0 && !n->root_gone && !full)
		return;
	if (w->first_ns == 0)
		w->first_ns = w->last_ns = now;
	if (n->settling > 0 || n->root_gone || full)
		w->last_ns = now;
}

/* Reads the events waiting; a failure leaves a periodic sync. */
static void
read_events(struct watcher *w)
{
	struct watch_news n = {0};

	if (w->tree == NULL)
		return;
	n.writing = w->writing;
	n.now = now_mono_ns();
	if (watch_tree_read(w->tree, &n) != FERRY_OK) {
		tell(w, "watching", ferry_errmsg(), 1);
		watch_tree_close(w->tree);
		w->tree = NULL;
		n.full = "events could not be read";
		n.events = 1;
	}
	take_news(w, &n, n.now);
}

/*
 * Why a run is due at now, or NULL; *whole says it is the periodic full
 * run, which holds back no file being written.
 */
static const char *
run_due(struct watcher *w, int64_t now, int *whole)
{
	int64_t settle = w->o->watch_settle * NS;

	*whole = 0;
	/* a retry that follows events lost says so: it is the full run
	 * they call for */
	if (w->retry_ns && now >= w->retry_ns)
		return w->gone   ? "the source folder was gone"
		       : w->full ? w->full
		                 : "a run again";
	if (w->first_ns && !w->gone &&
	    (now - w->last_ns >= settle ||
	        now - w->first_ns >= WATCH_SETTLE_CAP * settle))
		return w->full ? w->full : "changes";
	if (!w->gone && writing_ready(w, now))
		return w->full ? w->full : "changes";
	if ((w->tree == NULL || watch_tree_limited(w->tree)) &&
	    now >= w->poll_ns)
		return watch_source_period_why(w->o);
	*whole = 1;
	if (w->o->watch_rescan > 0 && now >= w->rescan_ns)
		return "the periodic full run (--watch-rescan)";
	return NULL;
}

/* The earliest time something is due after now. */
static int64_t
next_due(struct watcher *w)
{
	int64_t t = w->beat_ns, settle = w->o->watch_settle * NS, c;
	struct watch_written *e;
	size_t i;

#define EARLIER(x)                                                             \
	do {                                                                   \
		c = (x);                                                       \
		if (c < t)                                                     \
			t = c;                                                 \
	} while (0)
	if (w->retry_ns)
		EARLIER(w->retry_ns);
	/* a window held while the source folder is gone waits for retry_ns:
	 * its settle time past, the loop would spin until then */
	if (w->first_ns && !w->gone) {
		EARLIER(w->last_ns + settle);
		EARLIER(w->first_ns + WATCH_SETTLE_CAP * settle);
	}
	for (i = 0; !w->gone && i < watch_writing_count(w->writing); i++) {
		e = watch_writing_at(w->writing, i);
		EARLIER(e->last_ns + settle);
		EARLIER(e->first_ns + WATCH_SETTLE_CAP * settle);
	}
	if (w->tree == NULL || watch_tree_limited(w->tree))
		EARLIER(w->poll_ns);
	if (w->o->watch_rescan > 0)
		EARLIER(w->rescan_ns);
	EARLIER(w->ping_ns);
#undef EARLIER
	return t;
}

/*
 * After SIGHUP: the filter files read again, said, and a run soon (after
 * the settle time), since what the filters let through has changed.
 */
static void
reload(struct watcher *w, int64_t now)
{
	char why[640];
	int r = watch_reload(w->o, &w->filters, why, sizeof(why));

	tell(w, "reload", why, r < 0);
	if (r <= 0)
		return;
	w->full = "the filters were read again (SIGHUP)";
	if (w->first_ns == 0)
		w->first_ns = now;
	w->last_ns = now;
}

/* Waits for events or the next thing due, until a signal. */
static void
watch_loop(struct watcher *w)
{
	struct pollfd p = {.fd = -1, .events = POLLIN};
	int64_t now, wait;
	const char *why;
	int whole;

	while (!stop_sig && !w->quit) {
		now = now_mono_ns();
		wait = next_due(w) - now;
		p.fd = w->tree ? watch_tree_fd(w->tree) : -1;
		if (wait > 0 &&
		    poll(&p, 1, (int)((wait + 999999) / 1000000)) > 0) {
			read_events(w);
			show(w, NULL);
		}
		if (stop_sig)
			break;
		now = now_mono_ns();
		w->ping_ns = watch_notify_send(w->notify, NULL, NULL, now);
		if (hup_sig) {
			hup_sig = 0;
			reload(w, now);
		}
		if (now >= w->beat_ns) {
			tell(w, "heartbeat", NULL, 0);
			w->beat_ns = now + WATCH_BEAT_S * NS;
		}
		if ((why = run_due(w, now, &whole)) != NULL)
			run_once(w, why, whole);
	}
}

/* The watcher set up: its source folder, its lock if the folder exists. */
static int
watcher_init(struct watcher *w, const struct sync_opts *o)
{
	const char *t = getenv("FERRY_WATCH_TEST_OVERFLOW");
	ferry_err e;

	memset(w, 0, sizeof(*w));
	w->o = o;
	w->lockfd = -1;
	w->status = -1;
	if (t)
		w->test_overflow = (unsigned)strtoul(t, NULL, 10);
	w->ping_ns = INT64_MAX;
	w->shown.tick = tick;
	w->shown.arg = w;
	w->progress = output_progress_on(o);
	snprintf(w->doing, sizeof(w->doing), "running: the first run");
	if (!watch_source_polled(o) && (realpath(o->src, w->root) == NULL ||
	                                   stat(w->root, &w->root_st) != 0 ||
	                                   !S_ISDIR(w->root_st.st_mode))) {
		ferry_fail(FERRY_EUSAGE, "no folder '%s'", o->src);
		output_failure(o->json, FERRY_EUSAGE);
		return EXIT_USAGE;
	}
	e = take_lock(w);
	if (e == FERRY_OK || e == FERRY_ENOTFOUND)
		return -1;
	output_failure(o->json, e);
	return sync_exit_for(e);
}

int
sync_watch(const struct sync_opts *o)
{
	struct watcher w;
	struct sync_opts ro = *o;
	int rc;

	catch_stop();
	if ((rc = watcher_init(&w, o)) >= 0)
		return rc;
	/* none (out of memory): every event waits a settle time */
	w.writing = watch_writing_new();
	/* watches first: a change during the first run is not lost */
	watch_start(&w);
	w.notify = watch_notify_open();
	show(&w, NULL);
	run_whole(&w, &ro);
	rc = w.status;
	if (rc == EXIT_USAGE || rc == EXIT_BUSY)
		goto out;
	/* a destination not made yet (the first run failed): later */
	lock_late(&w);
	if (w.quit) {
		rc = w.quit;
		goto out;
	}
	w.beat_ns = now_mono_ns() + WATCH_BEAT_S * NS;
	after_run(&w, now_mono_ns());
	/* the first run has ended and the watches are set */
	show(&w, "READY=1");
	watch_loop(&w);
	snprintf(w.doing, sizeof(w.doing), "stopping");
	show(&w, "STOPPING=1");
	if (w.progress)
		output_watch_line(NULL);
	tell(&w, "stop", stop_sig ? "a signal: the watcher ends" : NULL, 0);
	/* a second signal cut the last run short: it did not end cleanly */
	rc = w.quit ? w.quit : ferry_interrupted ? EXIT_ABORTED : EXIT_SYNCED;
out:
	watch_tree_close(w.tree);
	watch_writing_free(w.writing);
	watch_notify_close(w.notify);
	filter_free(w.filters);
	if (w.lockfd >= 0)
		close(w.lockfd);
	return rc;
}
