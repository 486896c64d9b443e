/* linkpair.c: a link's key whose plain twin was listed (linkpair.h). */
#include <string.h>

#include "manifest/scan.h"
#include "sync/plan/linkpair.h"

/* The bytes a and b begin with alike. */
static size_t
common_prefix(const char *a, size_t an, const char *b, size_t bn)
{
	size_t i, n = an < bn ? an : bn;

	for (i = 0; i < n && a[i] == b[i]; i++)
		;
	return i;
}

/* Whether a key of len bytes that begins lp->last was taken. */
static int
taken(const struct link_pairs *lp, size_t len)
{
	size_t i;

	for (i = lp->n; i > 0; i--)
		if (lp->lens[i - 1] <= len)
			return lp->lens[i - 1] == len;
	return 0;
}

int
link_pairs_shadowed(struct link_pairs *lp, const char *key, size_t n)
{
	size_t same = common_prefix(lp->last, lp->lastlen, key, n);

	/* those taken that do not begin key begin no key after it */
	while (lp->n > 0 && lp->lens[lp->n - 1] > same)
		lp->n--;
	if (n > MANIFEST_LINK_EXT_LEN &&
	    memcmp(key + n - MANIFEST_LINK_EXT_LEN, MANIFEST_LINK_EXT,
	        MANIFEST_LINK_EXT_LEN) == 0 &&
	    taken(lp, n - MANIFEST_LINK_EXT_LEN))
		return 1;
	if (n > sizeof(lp->last) || lp->n == MANIFEST_KEY_MAX) {
		lp->n = 0; /* longer than a key: begins none */
		lp->lastlen = 0;
		return 0;
	}
	memcpy(lp->last, key, n);
	lp->lastlen = n;
	lp->lens[lp->n++] = (uint16_t)n;
	return 0;
}
