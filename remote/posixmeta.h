/*
 * posixmeta.h: a file's POSIX metadata as it is stored with its object,
 * under the x-amz-meta-* names rclone writes and reads (mtime, atime,
 * mode, uid, gid) and s3cmd's names for the owner's (uname, gname).  The
 * values are text, as sent or received; sync/posix.c makes and reads
 * them.  Included by remote.h.
 */
#ifndef FERRY_REMOTE_POSIXMETA_H
#define FERRY_REMOTE_POSIXMETA_H

#define REMOTE_META_POSIX_MTIME "x-amz-meta-mtime"
#define REMOTE_META_POSIX_ATIME "x-amz-meta-atime"
#define REMOTE_META_POSIX_MODE "x-amz-meta-mode"
#define REMOTE_META_POSIX_UID "x-amz-meta-uid"
#define REMOTE_META_POSIX_GID "x-amz-meta-gid"
#define REMOTE_META_POSIX_UNAME "x-amz-meta-uname"
#define REMOTE_META_POSIX_GNAME "x-amz-meta-gname"
#define REMOTE_POSIX_FIELDS 7

/*
 * The values, NUL-terminated, "" when absent.  A reply's value longer
 * than its field is never cut (a cut "0000000000000104755" would read as
 * mode 010): the field gets REMOTE_POSIX_CUT instead, a blank, which no
 * trimmed header value can be and every reader refuses, as it refuses a
 * malformed value.
 */
#define REMOTE_POSIX_CUT " "

struct remote_posix {
	char mtime[40]; /* seconds since the epoch: "1700000000.123456789" */
	char atime[48]; /* RFC 3339: "2023-11-14T22:13:20.123456789Z" */
	char mode[16];  /* octal, with the file type: "100644" */
	char uid[16];   /* decimal */
	char gid[16];
	char uname[64];
	char gname[64];
};

#endif
