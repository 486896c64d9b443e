/*
 * store.c: the user's text for where and how objects are stored (tags,
 * metadata, storage class, encryption, ACL), parsed and checked before
 * anything is sent.
 */
#include <string.h>

#include "remote/internal.h"

#define TAG_KEY_MAX 128
#define TAG_VALUE_MAX 256
#define META_MAX 2048 /* S3: names and values of user metadata, in all */

void
remote_store_init(struct remote_store *s)
{
	memset(s, 0, sizeof(*s));
	buf_init(&s->tagging, 16 * 1024);
	buf_init(&s->meta, 4 * 1024);
}

void
remote_store_clear(struct remote_store *s)
{
	if (s == NULL)
		return;
	buf_free(&s->tagging);
	buf_free(&s->meta);
	memset(s, 0, sizeof(*s));
}

/* Whether s[0..n) has a byte under ' ' or DEL (what a header cannot). */
static int
has_control(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
			return 1;
	return 0;
}

/* Whether the encoded tag key k (n bytes) is in the tagging already. */
static int
has_tag(const struct buf *t, const char *k, size_t n)
{
	const char *p = t->data;

	while (p != NULL && *p != '\0') {
		if (strncmp(p, k, n) == 0 && p[n] == '=')
			return 1;
		if ((p = strchr(p, '&')) != NULL)
			p++;
	}
	return 0;
}

/* One "K=V" of n bytes at item into s->tagging. */
static ferry_err
add_tag(struct remote_store *s, const char *item, size_t n)
{
	const char *eq = memchr(item, '=', n);
	size_t kn = eq ? (size_t)(eq - item) : 0, vn = eq ? n - kn - 1 : 0;
	struct buf k;
	ferry_err e;

	if (eq == NULL || kn == 0 || kn > TAG_KEY_MAX || vn > TAG_VALUE_MAX)
		return ferry_fail(FERRY_EUSAGE,
		    "--tags: '%.*s' is not KEY=VALUE (a key of 1 to %d bytes, "
		    "a value of at most %d)",
		    (int)(n > 300 ? 300 : n), item, TAG_KEY_MAX, TAG_VALUE_MAX);
	if (has_control(item, n))
		return ferry_fail(
		    FERRY_EUSAGE, "--tags: a control character in a tag");
	if (s->ntags == REMOTE_MAX_TAGS)
		return ferry_fail(
		    FERRY_EUSAGE, "--tags: more than %d tags", REMOTE_MAX_TAGS);
	buf_init(&k, 3 * TAG_KEY_MAX + 1);
	if ((e = uri_encode(&k, item, kn, 0)) == FERRY_OK &&
	    has_tag(&s->tagging, k.data, k.len))
		e = ferry_fail(FERRY_EUSAGE, "--tags: the key '%.*s' twice",
		    (int)kn, item);
	if (e == FERRY_OK &&
	    (e = buf_puts(&s->tagging, s->tagging.len ? "&" : "")) ==
	        FERRY_OK &&
	    (e = buf_append(&s->tagging, k.data, k.len)) == FERRY_OK &&
	    (e = buf_puts(&s->tagging, "=")) == FERRY_OK &&
	    (e = uri_encode(&s->tagging, eq + 1, vn, 0)) == FERRY_OK)
		s->ntags++;
	buf_free(&k);
	return e;
}

ferry_err
remote_store_tags(struct remote_store *s, const char *list)
{
	const char *p = list, *end;
	ferry_err e;

	do {
		end = strchr(p, ',');
		if (end == NULL)
			end = p + strlen(p);
		if ((e = add_tag(s, p, (size_t)(end - p))) != FERRY_OK)
			return e;
		p = end + 1;
	} while (*end != '\0');
	return FERRY_OK;
}

/* Whether c may be in an HTTP header name (RFC 9110's tchar). */
static int
is_tchar(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') ||
	       (c != '\0' && strchr("!#$%&'*+-.^_`|~", c) != NULL);
}

/* Whether "x-amz-meta-NAME:" (lower case, n bytes) is in s->meta. */
static int
has_meta(const struct remote_store *s, const char *name, size_t n)
{
	const char *p = s->meta.data;

	while (p != NULL && *p != '\0') {
		if (strncmp(p + 11, name, n) == 0 && p[11 + n] == ':')
			return 1;
		if ((p = strchr(p, '\n')) != NULL)
			p++;
	}
	return 0;
}

/* The bytes of names and values so far, as S3 counts them. */
static size_t
meta_size(const struct remote_store *s)
{
	const char *p = s->meta.data;
	size_t n = 0, lines = 0;

	for (; p != NULL && *p != '\0'; p++)
		lines += *p == '\n';
	/* each line: "x-amz-meta-" (11), ": " (2), '\n' (1) */
	if (s->meta.len > 0)
		n = s->meta.len - lines * 14;
	return n;
}

ferry_err
remote_store_meta(struct remote_store *s, const char *kv)
{
	const char *eq = strchr(kv, '=');
	size_t kn = eq ? (size_t)(eq - kv) : 0, i;
	char name[META_MAX + 1];
	ferry_err e;

	if (eq == NULL || kn == 0 || kn > 256)
		return ferry_fail(
		    FERRY_EUSAGE, "--metadata: '%.100s' is not NAME=VALUE", kv);
	for (i = 0; i < kn; i++) {
		if (!is_tchar(kv[i]))
			return ferry_fail(FERRY_EUSAGE,
			    "--metadata: '%.*s' is not a header name", (int)kn,
			    kv);
		name[i] =
		    kv[i] >= 'A' && kv[i] <= 'Z' ? (char)(kv[i] + 32) : kv[i];
	}
	name[kn] = '\0';
	for (i = kn + 1; kv[i] != '\0'; i++)
		if ((unsigned char)kv[i] < 0x20 || (unsigned char)kv[i] > 0x7e)
			return ferry_fail(FERRY_EUSAGE,
			    "--metadata %s: only printable ASCII in a value",
			    name);
	if (strncmp(name, "ferry-", 6) == 0)
		return ferry_fail(FERRY_EUSAGE,
		    "--metadata %s: ferry's own metadata is set by ferry",
		    name);
	if (has_meta(s, name, kn))
		return ferry_fail(
		    FERRY_EUSAGE, "--metadata %s: given twice", name);
	if (meta_size(s) + strlen(kv) - 1 > META_MAX)
		return ferry_fail(FERRY_EUSAGE,
		    "--metadata: more than %d bytes of names and values",
		    META_MAX);
	e = buf_printf(&s->meta, "x-amz-meta-%s: %s\n", name, eq + 1);
	return e;
}

/* Whether v is one of the NULL-ended list. */
static int
one_of(const char *v, const char *const *list)
{
	for (; *list; list++)
		if (strcmp(v, *list) == 0)
			return 1;
	return 0;
}

/* A header value: printable ASCII, not empty. */
static ferry_err
check_value(const char *flag, const char *v)
{
	size_t i;

	if (v == NULL)
		return FERRY_OK;
	for (i = 0; v[i] != '\0'; i++)
		if ((unsigned char)v[i] < 0x20 || (unsigned char)v[i] > 0x7e)
			break;
	if (i == 0 || v[i] != '\0')
		return ferry_fail(FERRY_EUSAGE,
		    "%s: not empty, and only printable ASCII", flag);
	return FERRY_OK;
}

/* A storage class: upper-case letters, digits and '_' (AWS's and others'). */
static int
class_valid(const char *c)
{
	size_t i;

	for (i = 0; c[i] != '\0'; i++)
		if (!((c[i] >= 'A' && c[i] <= 'Z') ||
		        (c[i] >= '0' && c[i] <= '9') || c[i] == '_'))
			return 0;
	return i > 0 && i <= 64;
}

ferry_err
remote_store_check(const struct remote_store *s)
{
	static const char *const sse[] = {
	    "AES256", "aws:kms", "aws:kms:dsse", NULL};
	static const char *const acl[] = {"private", "public-read",
	    "public-read-write", "authenticated-read", "aws-exec-read",
	    "bucket-owner-read", "bucket-owner-full-control", NULL};
	ferry_err e;

	if (s->storage_class && !class_valid(s->storage_class))
		return ferry_fail(FERRY_EUSAGE,
		    "--storage-class: '%.64s' is not a storage class "
		    "(STANDARD, STANDARD_IA, GLACIER_IR, ...)",
		    s->storage_class);
	if (s->sse && !one_of(s->sse, sse))
		return ferry_fail(FERRY_EUSAGE,
		    "--sse: AES256, aws:kms or aws:kms:dsse (a customer's "
		    "key: --sse-c-key)");
	if (s->sse_kms_key_id && (s->sse == NULL || s->sse[0] != 'a'))
		return ferry_fail(
		    FERRY_EUSAGE, "--sse-kms-key-id goes with --sse aws:kms");
	if (s->acl && !one_of(s->acl, acl))
		return ferry_fail(FERRY_EUSAGE,
		    "--acl: one of private, public-read, public-read-write, "
		    "authenticated-read, aws-exec-read, bucket-owner-read, "
		    "bucket-owner-full-control");
	if ((e = check_value("--sse-kms-key-id", s->sse_kms_key_id)) !=
	        FERRY_OK ||
	    (e = check_value("--cache-control", s->cache_control)) != FERRY_OK)
		return e;
	return check_value("--content-type", s->content_type);
}

int
remote_store_sets_meta(const struct remote_store *s)
{
	return s->cache_control || s->content_type || s->ntags > 0 ||
	       s->meta.len > 0;
}
