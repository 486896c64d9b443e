/*
 * tree.c: inotify watches on every folder of a tree (tree.h).  Each watch
 * descriptor maps to its folder's path, so that a folder created or moved
 * in below it is watched in turn; a folder moved within the tree is
 * walked again, which gives its watches (the same descriptors: inotify
 * keys them by inode) their new paths.  Each event of a file tells the
 * caller's set of files being written (writing.h) by the file's path
 * under the root: a create or a modify begins a write, anything else
 * ends it, and a folder deleted or moved away ends those below it.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sync/watch/tree.h"

#ifdef __linux__
#include <sys/inotify.h>

/* What changes a file or folder of the tree; the last three end a watch. */
#define TREE_MASK                                                              \
	(IN_CREATE | IN_CLOSE_WRITE | IN_MODIFY | IN_ATTRIB | IN_DELETE |      \
	    IN_MOVED_FROM | IN_MOVED_TO | IN_DELETE_SELF | IN_MOVE_SELF |      \
	    IN_ONLYDIR | IN_DONT_FOLLOW | IN_EXCL_UNLINK)

struct watch_tree {
	int fd;
	char *root;
	char *skip;   /* a folder left unwatched, or NULL */
	char **paths; /* by watch descriptor; NULL where none */
	size_t cap;
	uint64_t count; /* watches held */
	int root_wd;
	int limited;
	/* the cookie of the last folder moved away, to pair its IN_MOVED_TO */
	uint32_t from_cookie;
};

/* Keeps path (taken) as the folder of wd; frees it on failure. */
static ferry_err
keep_path(struct watch_tree *t, int wd, char *path)
{
	if ((size_t)wd >= t->cap) {
		size_t cap = t->cap ? t->cap : 64, i;
		char **p;

		while (cap <= (size_t)wd)
			cap *= 2;
		if ((p = realloc(t->paths, cap * sizeof(*p))) == NULL) {
			free(path);
			return ferry_fail(FERRY_ENOMEM, "out of memory");
		}
		for (i = t->cap; i < cap; i++)
			p[i] = NULL;
		t->paths = p;
		t->cap = cap;
	}
	if (t->paths[wd] == NULL)
		t->count++;
	free(t->paths[wd]);
	t->paths[wd] = path;
	return FERRY_OK;
}

/* Whether the entry d of the folder path is a folder (not a link to one). */
static int
is_dir(const char *path, const struct dirent *d)
{
	char full[PATH_MAX];
	struct stat st;

	if (d->d_type != DT_UNKNOWN)
		return d->d_type == DT_DIR;
	if (snprintf(full, sizeof(full), "%s/%s", path, d->d_name) >=
	    (int)sizeof(full))
		return 0;
	return lstat(full, &st) == 0 && S_ISDIR(st.st_mode);
}

static ferry_err add_dir(struct watch_tree *t, const char *path);

/* Watches the folders below path. */
static ferry_err
add_below(struct watch_tree *t, const char *path)
{
	char sub[PATH_MAX];
	struct dirent *d;
	ferry_err e = FERRY_OK;
	DIR *dir;

	/* gone again, or unreadable: the scan of the next run says so */
	if ((dir = opendir(path)) == NULL)
		return FERRY_OK;
	while (e == FERRY_OK && (d = readdir(dir)) != NULL) {
		if (strcmp(d->d_name, ".") == 0 ||
		    strcmp(d->d_name, "..") == 0 || !is_dir(path, d))
			continue;
		if (snprintf(sub, sizeof(sub), "%s/%s", path, d->d_name) >=
		    (int)sizeof(sub))
			continue;
		e = add_dir(t, sub);
	}
	closedir(dir);
	return e;
}

/*
 * Watches the folder path and those below it.  A folder that went away
 * meanwhile is passed over; ENOSPC (max_user_watches) marks the tree
 * limited and stops.
 */
static ferry_err
add_dir(struct watch_tree *t, const char *path)
{
	char *copy;
	int wd;
	ferry_err e;

	if (t->limited || (t->skip && strcmp(path, t->skip) == 0))
		return FERRY_OK;
	if ((wd = inotify_add_watch(t->fd, path, TREE_MASK)) < 0) {
		if (errno == ENOSPC) {
			t->limited = 1;
			return FERRY_OK;
		}
		if (errno == ENOMEM)
			return ferry_fail(
			    FERRY_ENOMEM, "inotify: out of memory");
		return FERRY_OK;
	}
	if ((copy = strdup(path)) == NULL)
		return ferry_fail(FERRY_ENOMEM, "out of memory");
	if ((e = keep_path(t, wd, copy)) != FERRY_OK)
		return e;
	return add_below(t, path);
}

/* Drops every watch; the descriptor is reopened by walk(). */
static void
drop_all(struct watch_tree *t)
{
	size_t i;

	if (t->fd >= 0)
		close(t->fd);
	t->fd = -1;
	for (i = 0; i < t->cap; i++) {
		free(t->paths[i]);
		t->paths[i] = NULL;
	}
	t->count = 0;
	t->limited = 0;
	t->from_cookie = 0;
}

/* A fresh inotify instance watching the whole tree. */
static ferry_err
walk(struct watch_tree *t)
{
	char *copy;
	ferry_err e;

	if ((t->fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC)) < 0)
		return ferry_fail(FERRY_ESYS, "inotify: %s%s", strerror(errno),
		    errno == EMFILE ? " (fs.inotify.max_user_instances)" : "");
	t->root_wd = inotify_add_watch(t->fd, t->root, TREE_MASK);
	if (t->root_wd < 0)
		return ferry_fail(FERRY_ESYS,
		    "inotify: cannot watch '%s': %s%s", t->root,
		    strerror(errno),
		    errno == ENOSPC ? " (fs.inotify.max_user_watches)" : "");
	if ((copy = strdup(t->root)) == NULL)
		return ferry_fail(FERRY_ENOMEM, "out of memory");
	if ((e = keep_path(t, t->root_wd, copy)) != FERRY_OK)
		return e;
	return add_below(t, t->root);
}

ferry_err
watch_tree_open(const char *root, const char *skip, struct watch_tree **out)
{
	struct watch_tree *t;
	ferry_err e;

	*out = NULL;
	if ((t = calloc(1, sizeof(*t))) == NULL)
		return ferry_fail(FERRY_ENOMEM, "out of memory");
	t->fd = -1;
	t->root = strdup(root);
	t->skip = skip ? strdup(skip) : NULL;
	if (t->root == NULL || (skip && t->skip == NULL))
		e = ferry_fail(FERRY_ENOMEM, "out of memory");
	else
		e = walk(t);
	if (e != FERRY_OK) {
		watch_tree_close(t);
		return e;
	}
	*out = t;
	return FERRY_OK;
}

ferry_err
watch_tree_reset(struct watch_tree *t)
{
	drop_all(t);
	return walk(t);
}

/* A folder name appeared under the folder of wd: watch it and below. */
static ferry_err
dir_came(struct watch_tree *t, const struct inotify_event *ev)
{
	char sub[PATH_MAX];
	const char *parent = t->paths[ev->wd];

	if (snprintf(sub, sizeof(sub), "%s/%s", parent, ev->name) >=
	    (int)sizeof(sub))
		return FERRY_OK;
	return add_dir(t, sub);
}

/*
 * The path of the entry ev names, relative to the root, into out (n
 * bytes); 0 when it does not fit.
 */
static int
rel_path(const struct watch_tree *t, const struct inotify_event *ev, char *out,
    size_t n)
{
	const char *dir = t->paths[ev->wd] + strlen(t->root);

	dir += *dir == '/';
	return snprintf(out, n, "%s%s%s", dir, *dir ? "/" : "", ev->name) <
	       (int)n;
}

/*
 * Tells the set of files being written what ev says of the file or
 * folder it names, and counts ev in n: a write of a file kept in the set,
 * a close of a write, or an event the window waits a settle time for.
 */
static void
take_write(
    struct watch_tree *t, const struct inotify_event *ev, struct watch_news *n)
{
	char rel[PATH_MAX];
	int dir = (ev->mask & IN_ISDIR) != 0;

	if (n->writing == NULL || ev->len == 0 ||
	    !rel_path(t, ev, rel, sizeof(rel))) {
		n->settling++;
		return;
	}
	if (dir) {
		if (ev->mask & (IN_DELETE | IN_MOVED_FROM))
			watch_writing_drop_below(n->writing, rel);
		n->settling++;
		return;
	}
	if ((ev->mask & (IN_CREATE | IN_MODIFY)) &&
	    !(ev->mask & ~(IN_CREATE | IN_MODIFY))) {
		if (watch_writing_touch(n->writing, rel, n->now))
			return;
		n->unfollowed = 1;
	}
	watch_writing_end(n->writing, rel);
	if (ev->mask & IN_CLOSE_WRITE)
		n->closed++;
	else
		n->settling++;
}

/* Acts on one event of a folder that has a watch. */
static ferry_err
take_event(
    struct watch_tree *t, const struct inotify_event *ev, struct watch_news *n)
{
	int dir = (ev->mask & IN_ISDIR) != 0;

	if (ev->mask & IN_IGNORED) {
		free(t->paths[ev->wd]);
		t->paths[ev->wd] = NULL;
		t->count--;
		if (ev->wd == t->root_wd)
			n->root_gone = 1;
		return FERRY_OK;
	}
	n->events++;
	take_write(t, ev, n);
	if (ev->wd == t->root_wd &&
	    (ev->mask & (IN_DELETE_SELF | IN_MOVE_SELF)))
		n->root_gone = 1;
	if (dir && (ev->mask & IN_MOVED_FROM))
		t->from_cookie = ev->cookie;
	if (!dir || !(ev->mask & (IN_CREATE | IN_MOVED_TO)) || ev->len == 0)
		return FERRY_OK;
	if ((ev->mask & IN_MOVED_TO) &&
	    (ev->cookie == 0 || ev->cookie != t->from_cookie))
		n->full = "a folder was moved in from outside the tree";
	return dir_came(t, ev);
}

ferry_err
watch_tree_read(struct watch_tree *t, struct watch_news *n)
{
	char buf[64 * 1024]
	    __attribute__((aligned(__alignof__(struct inotify_event))));
	const struct inotify_event *ev;
	ssize_t got, off;
	ferry_err e;

	for (;;) {
		if ((got = read(t->fd, buf, sizeof(buf))) < 0) {
			if (errno == EAGAIN || errno == EINTR)
				break;
			return ferry_fail(
			    FERRY_ESYS, "inotify: read: %s", strerror(errno));
		}
		for (off = 0; off < got;
		     off += (ssize_t)sizeof(*ev) + (ssize_t)ev->len) {
			ev = (const struct inotify_event *)(buf + off);
			if (ev->mask & IN_Q_OVERFLOW) {
				n->events++;
				n->settling++;
				n->full = "the inotify queue overflowed "
				          "(fs.inotify.max_queued_events)";
				continue;
			}
			if (ev->wd < 0 || (size_t)ev->wd >= t->cap ||
			    t->paths[ev->wd] == NULL)
				continue;
			if ((e = take_event(t, ev, n)) != FERRY_OK)
				return e;
		}
	}
	if (t->limited)
		n->limit = 1;
	return FERRY_OK;
}

int
watch_tree_fd(const struct watch_tree *t)
{
	return t->fd;
}

int
watch_tree_limited(const struct watch_tree *t)
{
	return t->limited;
}

uint64_t
watch_tree_count(const struct watch_tree *t)
{
	return t->count;
}

void
watch_tree_close(struct watch_tree *t)
{
	if (t == NULL)
		return;
	drop_all(t);
	free(t->paths);
	free(t->root);
	free(t->skip);
	free(t);
}

#else /* not Linux: no inotify */

ferry_err
watch_tree_open(const char *root, const char *skip, struct watch_tree **out)
{
	(void)root;
	(void)skip;
	*out = NULL;
	return ferry_fail(FERRY_EUSAGE, "--watch needs Linux's inotify");
}

int
watch_tree_fd(const struct watch_tree *t)
{
	(void)t;
	return -1;
}

int
watch_tree_limited(const struct watch_tree *t)
{
	(void)t;
	return 0;
}

uint64_t
watch_tree_count(const struct watch_tree *t)
{
	(void)t;
	return 0;
}

ferry_err
watch_tree_read(struct watch_tree *t, struct watch_news *n)
{
	(void)t;
	(void)n;
	return FERRY_OK;
}

ferry_err
watch_tree_reset(struct watch_tree *t)
{
	(void)t;
	return FERRY_OK;
}

void
watch_tree_close(struct watch_tree *t)
{
	(void)t;
}

#endif
