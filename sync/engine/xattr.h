/*
 * xattr.h: a file's user.* extended attributes and POSIX ACLs kept with
 * its object (-X/--xattrs, -A/--acls).  xattr.c maps names and encodes
 * values (pure, thread-safe); acl.c turns an ACL's binary xattr into text
 * and back (pure); xattrfs.c reads them from and gives them to files.
 * Seen from other wings through sync/engine/engine.h.
 *
 * The names are rclone's: the attribute user.NAME is the metadata NAME,
 * stored as x-amz-meta-NAME.  A value of printable ASCII, neither empty
 * nor starting or ending with a blank nor starting with "=?", goes as it
 * is; any other as an RFC 2047 encoded word, "=?UTF-8?B?BASE64?=" when it
 * is UTF-8 text and "=?X-BINARY?B?BASE64?=" when not.  An ACL goes under
 * XATTR_META_ACL as acl(5)'s short text form with numeric ids
 * ("u::rw-,u:1000:r--,g::r--,m::r--,o::---").
 */
#ifndef FERRY_SYNC_XATTR_H
#define FERRY_SYNC_XATTR_H

#include <stddef.h>
#include <stdint.h>

#include "common/common.h"

/* the metadata name of a file's access ACL (system.posix_acl_access) */
#define XATTR_META_ACL "ferry-acl"
#define XATTR_ACL_NAME "system.posix_acl_access"
#define XATTR_USER "user."
#define XATTR_USER_LEN 5
/* the longest value ferry reads or gives: S3 keeps 2 KiB of metadata */
#define XATTR_VALUE_MAX 2048
/* the longest ACL text or binary xattr read: 2 KiB of metadata again */
#define XATTR_ACL_MAX 2048

/*
 * Why the attribute user.NAME (name is NAME) cannot be kept as metadata,
 * or NULL: empty, a byte that is no HTTP token's, an upper case letter
 * (S3 gives names back in lower case), or one of the names ferry or
 * rclone keep their own metadata under (mtime, atime, btime, mode, uid,
 * gid, rdev, uname, gname, ferry-*).  Pure.
 */
const char *xattr_name_refused(const char *name);

/*
 * Whether the metadata name (without x-amz-meta-) is one ferry or rclone
 * keeps its own under, never a user attribute on pull.  Pure.
 */
int xattr_name_reserved(const char *name, size_t n);

/*
 * Appends the metadata value of the n bytes at v to out, as the header
 * comment says.  FERRY_OK, or buf_append()'s error.  Thread-safe.
 */
ferry_err xattr_value_encode(
    const uint8_t *v, size_t n, struct buf *out) FERRY_WUR;

/*
 * The bytes the metadata value s (n bytes) stands for, into out (cap
 * bytes), their count in *len: 0, or -1 for an encoded word that is
 * malformed (a charset other than the two, a byte outside base64, bad
 * padding, nonzero bits left over) or longer than cap, or a value
 * starting with "=?" that is no encoded word.  Any bytes are safe.  Pure.
 */
int xattr_value_decode(
    const char *s, size_t n, uint8_t *out, size_t cap, size_t *len);

/* acl.c */

/*
 * The text of the ACL xattr b (n bytes: version 2, then 8-byte entries
 * of tag, permissions and id, little-endian) into out (cap bytes): 0, or
 * -1 when b is malformed (a version other than 2, a size that is not
 * whole entries, an unknown tag or permission bit, entries out of the
 * order the kernel keeps) or the text does not fit.  Pure.
 */
int acl_to_text(const uint8_t *b, size_t n, char *out, size_t cap);

/*
 * The ACL xattr of the text s (n bytes, as acl_to_text() writes it) into
 * out (cap bytes), its size in *len: 0, or -1 when s is malformed or out
 * of that order, or does not fit.  Any bytes are safe.  Pure.
 */
int acl_from_text(
    const char *s, size_t n, uint8_t *out, size_t cap, size_t *len);

/* xattrfs.c */

/*
 * The user.* attributes (with xattrs) and the access ACL (with acls) of
 * the open file fd, path key for messages, as "x-amz-meta-NAME: VALUE\n"
 * lines into *out (malloc'd, for the caller to free; NULL when there are
 * none).  An attribute that cannot be kept is warned about and left out.
 * FERRY_OK, else FERRY_ESYS or FERRY_ENOMEM with *out NULL; a file system
 * without extended attributes has none.  Thread-safe.
 */
ferry_err xattr_read_fd(
    int fd, const char *key, int xattrs, int acls, char **out) FERRY_WUR;

/* What xattr_give_fd() said once a run. */
struct xattr_warned {
	int unsupported, acl_unsupported;
};

/*
 * Gives the open file fd (path key for messages) the attributes (with
 * xattrs) and ACL (with acls) in meta, the "x-amz-meta-NAME: VALUE\n"
 * lines of an object's reply.  What is malformed or refused is warned
 * about, never a failure: the bytes are there.  A file system that keeps
 * no extended attributes (ENOTSUP) is said once a run, in w.  Not
 * thread-safe on w.
 */
void xattr_give_fd(int fd, const char *key, const char *meta, int xattrs,
    int acls, struct xattr_warned *w);

#endif
