/*
 * scan.h: the scanner that brings the local table in line with a tree
 * (scan.c), and the reopening of what it found (localopen.c).  Included
 * by manifest.h.
 */
#ifndef FERRY_MANIFEST_SCAN_H
#define FERRY_MANIFEST_SCAN_H

#include <stdint.h>

#include "common/common.h"

struct manifest;
struct manifest_local;

/*
 * Fills r with the stat fields of st, the hash zero: the record of the
 * file as the scanner keeps it.  Thread-safe.
 */
struct stat;
void manifest_local_from_stat(struct manifest_local *r, const struct stat *st);

struct manifest_scan_stats;

struct manifest_scan_opts {
	int checksum; /* re-hash every file, trust no stat cache */
	/*
	 * Walk what symlinks point to, as if it were there: a file's record
	 * is its target's.  A dangling link, and a link to a folder that
	 * holds it, are left out ("dangling symlink", "symlink loop").
	 */
	int follow;
	/*
	 * With links (and not follow), a symlink is kept as an entry named
	 * after it with MANIFEST_LINK_EXT added, whose bytes are its
	 * target; with keep_dirs, a folder with no entry kept is an entry
	 * of its own, its path with its '/', of no bytes.  The record of
	 * either has its kind in mode (S_IFLNK, S_IFDIR).
	 */
	int links, keep_dirs;
	/*
	 * Returns non-zero to include relpath (is_dir: a folder, whose
	 * exclusion prunes it).  NULL includes everything.
	 */
	int (*filter)(const char *relpath, int is_dir, void *arg);
	void *filter_arg;
	/* Called for each entry that could not be read; NULL: ignored. */
	void (*report)(
	    const char *relpath, ferry_err e, const char *msg, void *arg);
	/*
	 * Called, with report_arg, for each entry the filter keeps that is
	 * neither a regular file nor a folder, and so is left out; what is
	 * "symlink", "fifo", "socket" or "device" (or, with follow,
	 * "dangling symlink" or "symlink loop").  NULL: ignored.
	 */
	void (*left_out)(const char *relpath, const char *what, void *arg);
	/*
	 * Called, with report_arg, after each file counted, with the counts
	 * so far (for a progress line), on the scanning thread; NULL: not
	 * called.
	 */
	void (*progress)(const struct manifest_scan_stats *st, void *arg);
	void *report_arg;
};

struct manifest_scan_stats {
	uint64_t files;  /* regular files now in the table */
	uint64_t bytes;  /* their total size */
	uint64_t hashed; /* files read and hashed this scan */
	uint64_t hashed_bytes;
	uint64_t skipped; /* symlinks, devices, sockets, fifos: left_out() */
	uint64_t errors;  /* entries reported through report() */
};

/*
 * Walks the tree under the directory descriptor rootfd (not closed) with
 * openat/fdopendir, never following symlinks, and brings the local table
 * in line with it: new and changed files (size, mtime_ns, ctime_ns, ino,
 * dev differ, or opts->checksum) are hashed and written, unchanged ones
 * keep their hash without being read, vanished ones are removed.  Writes
 * go in large batches.  An unreadable file or folder is reported and
 * left out (and, if it had a record, the record is kept, so that the sync
 * does not take it for deleted: stats->errors counts them and the caller
 * must then not delete).  Returns an error only for failures that stop
 * the whole scan.
 */
ferry_err manifest_scan(struct manifest *m, int rootfd,
    const struct manifest_scan_opts *opts,
    struct manifest_scan_stats *stats) FERRY_WUR;

/*
 * Opens for reading, again, the file a scan found at path (relative,
 * '/'-separated, as in the local table) under the folder rootfd: beneath
 * it and through no symbolic link, or with follow through them as a
 * scan with opts->follow went.  Nothing blocks (a fifo at the name
 * included).  Only a regular file is taken, and with want (the scan's
 * record) only the one with its device and inode.  Returns FERRY_OK with
 * *fd (the caller's to close, reads blocking) and its *st; FERRY_ECHANGED
 * when the path leads elsewhere than the scan found ("changed since the
 * scan: now a symbolic link", "... not a regular file", "... another
 * file"), FERRY_ESYS when it cannot be opened (gone, no permission);
 * *fd is then -1.  A path unlike the scan's (with an empty, "." or ".."
 * component) may be refused with FERRY_EUSAGE.  Thread-safe.
 */
ferry_err manifest_local_open(int rootfd, const char *path,
    const struct manifest_local *want, int follow, int *fd,
    struct stat *st) FERRY_WUR;

/* How a symlink's entry is named: rclone's --links convention. */
#define MANIFEST_LINK_EXT ".rclonelink"
#define MANIFEST_LINK_EXT_LEN 11

/*
 * Reads again what a scan with links or keep_dirs found at key (as in
 * the local table) under rootfd, never through a symlink: for a link's
 * entry (want->mode S_IFLNK), its target, into buf (cap bytes), its
 * length in *len; for an empty folder's ("dir/"), nothing.  *st is the
 * link's or the folder's lstat.  FERRY_ECHANGED when it is no longer
 * what the scan saw (another inode, another size), FERRY_ESYS when it
 * cannot be read.  Thread-safe.
 */
ferry_err manifest_special_read(int rootfd, const char *key, size_t keylen,
    const struct manifest_local *want, char *buf, size_t cap, size_t *len,
    struct stat *st) FERRY_WUR;

#endif
