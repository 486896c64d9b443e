/*
 * xattrfs.c: -X and -A on a file: its user.* extended attributes and its
 * access ACL read into the metadata lines of its object, and given back
 * from those of an object's reply (xattr.h says the form).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/xattr.h>

#include "sync/engine/xattr.h"

/* the list of a file's attribute names: 64 KiB is the kernel's bound */
#define NAMES_MAX 65536
#define LINES_MAX 65536

/* Whether errno says the file system keeps no extended attributes. */
static int
unsupported(int err)
{
	return err == ENOTSUP || err == EOPNOTSUPP;
}

/* Appends "x-amz-meta-name: value\n", the value of v (n bytes) encoded. */
static ferry_err
add_line(struct buf *b, const char *name, const uint8_t *v, size_t n)
{
	ferry_err e;

	if ((e = buf_printf(b, "x-amz-meta-%s: ", name)) == FERRY_OK &&
	    (e = xattr_value_encode(v, n, b)) == FERRY_OK)
		e = buf_puts(b, "\n");
	return e;
}

/*
 * The value of attribute name of fd into v (XATTR_VALUE_MAX bytes), its
 * length in *n: 0; 1 for one too long to keep (said); -1 with errno.
 */
static int
value_of(int fd, const char *key, const char *name, uint8_t *v, size_t *n)
{
	ssize_t r = fgetxattr(fd, name, v, XATTR_VALUE_MAX);

	if (r < 0 && errno == ERANGE) {
		log_warn("%s: its attribute %s is larger than the %d bytes of "
		         "metadata an object keeps: not sent",
		    key, name, XATTR_VALUE_MAX);
		return 1;
	}
	if (r < 0)
		return -1;
	*n = (size_t)r;
	return 0;
}

/* Adds the user.* attribute name of fd (said when it cannot go). */
static ferry_err
add_user(int fd, const char *key, const char *name, struct buf *b)
{
	uint8_t v[XATTR_VALUE_MAX];
	const char *why;
	size_t n;
	int r;

	if ((why = xattr_name_refused(name + XATTR_USER_LEN)) != NULL) {
		log_warn(
		    "%s: its attribute %s is not sent: %s", key, name, why);
		return FERRY_OK;
	}
	if ((r = value_of(fd, key, name, v, &n)) > 0 ||
	    (r < 0 && errno == ENODATA))
		return FERRY_OK;
	if (r < 0)
		return ferry_fail(FERRY_ESYS,
		    "cannot read the attribute %s of "
		    "%s: %s",
		    name, key, strerror(errno));
	return add_line(b, name + XATTR_USER_LEN, v, n);
}

/* Adds the access ACL of fd, if it has one. */
static ferry_err
add_acl(int fd, const char *key, struct buf *b)
{
	uint8_t v[XATTR_VALUE_MAX];
	char text[XATTR_ACL_MAX];
	size_t n;
	int r;

	r = value_of(fd, key, XATTR_ACL_NAME, v, &n);
	if (r > 0 || (r < 0 && (errno == ENODATA || unsupported(errno))))
		return FERRY_OK;
	if (r < 0)
		return ferry_fail(FERRY_ESYS, "cannot read the ACL of %s: %s",
		    key, strerror(errno));
	if (acl_to_text(v, n, text, sizeof(text)) != 0) {
		log_warn("%s: its ACL is not one ferry reads: not sent", key);
		return FERRY_OK;
	}
	return add_line(b, XATTR_META_ACL, (const uint8_t *)text, strlen(text));
}

/* The names of fd's attributes into *names (malloc'd), their size in *n. */
static ferry_err
names_of(int fd, const char *key, char **names, size_t *n)
{
	ssize_t r;

	*names = NULL;
	*n = 0;
	if ((r = flistxattr(fd, NULL, 0)) <= 0)
		return r == 0 || unsupported(errno)
		           ? FERRY_OK
		           : ferry_fail(FERRY_ESYS,
		                 "cannot list the attributes of %s: %s", key,
		                 strerror(errno));
	if ((*names = malloc(NAMES_MAX)) == NULL)
		return ferry_fail(FERRY_ENOMEM, "out of memory");
	if ((r = flistxattr(fd, *names, NAMES_MAX)) < 0) {
		free(*names);
		*names = NULL;
		return ferry_fail(FERRY_ESYS,
		    "cannot list the attributes of %s: %s", key,
		    strerror(errno));
	}
	*n = (size_t)r;
	return FERRY_OK;
}

ferry_err
xattr_read_fd(int fd, const char *key, int xattrs, int acls, char **out)
{
	struct buf b;
	char *names = NULL, *nm;
	size_t n = 0;
	ferry_err e = FERRY_OK;

	*out = NULL;
	buf_init(&b, LINES_MAX);
	if (xattrs)
		e = names_of(fd, key, &names, &n);
	for (nm = names; e == FERRY_OK && nm && nm < names + n;
	     nm += strlen(nm) + 1)
		if (strncmp(nm, XATTR_USER, XATTR_USER_LEN) == 0)
			e = add_user(fd, key, nm, &b);
	free(names);
	if (e == FERRY_OK && acls)
		e = add_acl(fd, key, &b);
	if (e == FERRY_OK && b.len > 0) {
		*out = b.data;
		return FERRY_OK;
	}
	buf_free(&b);
	return e;
}

/* Says once a run that the file system keeps no attributes or ACLs. */
static void
say_unsupported(const char *key, int acl, struct xattr_warned *w)
{
	int *said = acl ? &w->acl_unsupported : &w->unsupported;

	if (*said)
		return;
	*said = 1;
	log_warn("%s: the file system refuses %s (%s): files are written "
	         "without them (said for the first such file only)",
	    key, acl ? "ACLs" : "extended attributes", strerror(ENOTSUP));
}

/* Gives fd the ACL of the text v (n bytes). */
static void
give_acl(
    int fd, const char *key, const char *v, size_t n, struct xattr_warned *w)
{
	uint8_t b[XATTR_ACL_MAX];
	size_t len;

	if (acl_from_text(v, n, b, sizeof(b), &len) != 0) {
		log_warn("%s: its object's x-amz-meta-%s is not an ACL ferry "
		         "writes: left out",
		    key, XATTR_META_ACL);
		return;
	}
	if (fsetxattr(fd, XATTR_ACL_NAME, b, len, 0) == 0)
		return;
	if (unsupported(errno))
		say_unsupported(key, 1, w);
	else
		log_warn(
		    "%s: cannot give it its ACL: %s", key, strerror(errno));
}

/* Gives fd the attribute of one metadata name and value. */
static void
give_one(int fd, const char *key, const char *name, size_t nlen, const char *v,
    size_t vlen, struct xattr_warned *w)
{
	uint8_t val[XATTR_VALUE_MAX];
	char xname[XATTR_USER_LEN + 256];
	size_t len;

	if (nlen >= sizeof(xname) - XATTR_USER_LEN ||
	    xattr_value_decode(v, vlen, val, sizeof(val), &len) != 0) {
		log_warn("%s: its object's x-amz-meta-%.*s is not a value "
		         "ferry or rclone writes: left out",
		    key, (int)(nlen > 200 ? 200 : nlen), name);
		return;
	}
	snprintf(xname, sizeof(xname), "%s%.*s", XATTR_USER, (int)nlen, name);
	if (fsetxattr(fd, xname, val, len, 0) == 0)
		return;
	if (unsupported(errno))
		say_unsupported(key, 0, w);
	else
		log_warn("%s: cannot give it the attribute %s: %s", key, xname,
		    strerror(errno));
}

void
xattr_give_fd(int fd, const char *key, const char *meta, int xattrs, int acls,
    struct xattr_warned *w)
{
	const char *line, *end, *colon, *name, *v;
	size_t nlen;

	for (line = meta; line && *line; line = *end ? end + 1 : end) {
		end = line + strcspn(line, "\n");
		colon = memchr(line, ':', (size_t)(end - line));
		if (colon == NULL || colon - line <= 11 ||
		    strncmp(line, "x-amz-meta-", 11) != 0)
			continue;
		name = line + 11;
		nlen = (size_t)(colon - name);
		v = colon + 1 < end && colon[1] == ' ' ? colon + 2 : colon + 1;
		if (acls && nlen == strlen(XATTR_META_ACL) &&
		    memcmp(name, XATTR_META_ACL, nlen) == 0)
			give_acl(fd, key, v, (size_t)(end - v), w);
		else if (xattrs && !xattr_name_reserved(name, nlen))
			give_one(fd, key, name, nlen, v, (size_t)(end - v), w);
	}
}
