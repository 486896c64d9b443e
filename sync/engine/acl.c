/*
 * acl.c: a POSIX ACL's binary xattr (system.posix_acl_access, as Linux
 * keeps it: a little-endian version 2, then entries of a 16-bit tag, a
 * 16-bit permission set and a 32-bit id) as acl(5)'s short text form with
 * numeric ids, and back (xattr.h).  Pure: no libacl.
 */
#include <stdio.h>
#include <string.h>

#include "sync/engine/xattr.h"

#define ACL_VERSION 2
#define ACL_HEAD 4
#define ACL_ENTRY 8
#define ACL_NO_ID 0xffffffffu

/* The tags in the order the kernel keeps them, and their letters. */
static const struct {
	uint16_t tag;
	char letter;
	int has_id; /* a named user's or group's entry */
} TAGS[] = {
    {0x01, 'u', 0}, /* ACL_USER_OBJ */
    {0x02, 'u', 1}, /* ACL_USER */
    {0x04, 'g', 0}, /* ACL_GROUP_OBJ */
    {0x08, 'g', 1}, /* ACL_GROUP */
    {0x10, 'm', 0}, /* ACL_MASK */
    {0x20, 'o', 0}, /* ACL_OTHER */
};
#define NTAGS (sizeof(TAGS) / sizeof(TAGS[0]))

static uint32_t
le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static void
put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

/* The index in TAGS of tag, or -1. */
static int
tag_index(uint32_t tag)
{
	size_t i;

	for (i = 0; i < NTAGS; i++)
		if (TAGS[i].tag == tag)
			return (int)i;
	return -1;
}

/*
 * Whether the entry (index t in TAGS, id) may follow the one before it
 * (pt, pid; pt -1 for the first): tags in TAGS' order, each tag without
 * an id once, named entries by rising id.
 */
static int
in_order(int pt, uint32_t pid, int t, uint32_t id)
{
	if (pt < 0)
		return 1;
	if (t != pt)
		return t > pt;
	return TAGS[t].has_id && id > pid;
}

/*
 * Whether the entries seen (by tag, in seen[]) make an ACL the kernel
 * takes: the owner's, group's and others' entries, and a mask when there
 * is a named entry.
 */
static int
complete(const int seen[NTAGS])
{
	return seen[0] && seen[2] && seen[5] &&
	       (seen[4] || !(seen[1] || seen[3]));
}

int
acl_to_text(const uint8_t *b, size_t n, char *out, size_t cap)
{
	int seen[NTAGS] = {0}, t, pt = -1;
	size_t i, o = 0;
	uint32_t tag, perm, id, pid = 0;
	int w;

	if (n < ACL_HEAD || (n - ACL_HEAD) % ACL_ENTRY != 0 ||
	    le32(b) != ACL_VERSION || cap == 0)
		return -1;
	for (i = ACL_HEAD; i < n; i += ACL_ENTRY) {
		tag = (uint32_t)b[i] | (uint32_t)b[i + 1] << 8;
		perm = (uint32_t)b[i + 2] | (uint32_t)b[i + 3] << 8;
		id = le32(b + i + 4);
		if ((t = tag_index(tag)) < 0 || perm > 7 ||
		    !in_order(pt, pid, t, id))
			return -1;
		if (!TAGS[t].has_id)
			id = ACL_NO_ID;
		seen[t] = 1;
		pt = t;
		pid = id;
		if (TAGS[t].has_id)
			w = snprintf(out + o, cap - o, "%s%c:%u:%c%c%c",
			    o ? "," : "", TAGS[t].letter, (unsigned)id,
			    perm & 4 ? 'r' : '-', perm & 2 ? 'w' : '-',
			    perm & 1 ? 'x' : '-');
		else
			w = snprintf(out + o, cap - o, "%s%c::%c%c%c",
			    o ? "," : "", TAGS[t].letter, perm & 4 ? 'r' : '-',
			    perm & 2 ? 'w' : '-', perm & 1 ? 'x' : '-');
		if (w < 0 || (size_t)w >= cap - o)
			return -1;
		o += (size_t)w;
	}
	return complete(seen) ? 0 : -1;
}

/* A decimal id of one entry's text (no sign, no leading zero, < 2^32-1). */
static int
parse_id(const char *s, size_t n, uint32_t *id)
{
	uint64_t v = 0;
	size_t i;

	if (n == 0 || n > 10 || (s[0] == '0' && n > 1))
		return -1;
	for (i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (uint64_t)(s[i] - '0');
	}
	if (v >= ACL_NO_ID)
		return -1;
	*id = (uint32_t)v;
	return 0;
}

/* One entry's text s (n bytes): its index in TAGS, id and permissions. */
static int
parse_entry(const char *s, size_t n, int *t, uint32_t *id, uint32_t *perm)
{
	const char *c2;
	size_t idlen, i;

	if (n < 6 || s[1] != ':' || (c2 = memchr(s + 2, ':', n - 2)) == NULL ||
	    s + n - c2 != 4)
		return -1;
	idlen = (size_t)(c2 - (s + 2));
	for (i = 0; i < NTAGS; i++)
		if (TAGS[i].letter == s[0] && TAGS[i].has_id == (idlen > 0))
			break;
	if (i == NTAGS)
		return -1;
	*t = (int)i;
	*id = ACL_NO_ID;
	if (idlen > 0 && parse_id(s + 2, idlen, id) != 0)
		return -1;
	if ((c2[1] != 'r' && c2[1] != '-') || (c2[2] != 'w' && c2[2] != '-') ||
	    (c2[3] != 'x' && c2[3] != '-'))
		return -1;
	*perm = (c2[1] == 'r' ? 4u : 0) | (c2[2] == 'w' ? 2u : 0) |
	        (c2[3] == 'x' ? 1u : 0);
	return 0;
}

int
acl_from_text(const char *s, size_t n, uint8_t *out, size_t cap, size_t *len)
{
	int seen[NTAGS] = {0}, t, pt = -1;
	uint32_t id, perm, pid = 0;
	const char *p = s, *end = s + n, *comma;
	size_t o = ACL_HEAD;

	*len = 0;
	if (cap < ACL_HEAD || n == 0)
		return -1;
	put32(out, ACL_VERSION);
	while (p < end) {
		comma = memchr(p, ',', (size_t)(end - p));
		if (comma == NULL)
			comma = end;
		if (parse_entry(p, (size_t)(comma - p), &t, &id, &perm) != 0 ||
		    !in_order(pt, pid, t, id) || cap - o < ACL_ENTRY)
			return -1;
		out[o] = (uint8_t)TAGS[t].tag;
		out[o + 1] = 0;
		out[o + 2] = (uint8_t)perm;
		out[o + 3] = 0;
		put32(out + o + 4, id);
		o += ACL_ENTRY;
		seen[t] = 1;
		pt = t;
		pid = id;
		/* a comma ends an entry that another follows */
		if (comma != end && comma + 1 == end)
			return -1;
		p = comma == end ? end : comma + 1;
	}
	if (!complete(seen))
		return -1;
	*len = o;
	return 0;
}
