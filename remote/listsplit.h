/*
 * listsplit.h: where a listing's key space is cut into ranges listed at
 * once.  A range is (low, high]: it is listed with start-after=low and
 * ends at the first key past high.  Private to remote/.
 */
#ifndef FERRY_LISTSPLIT_H
#define FERRY_LISTSPLIT_H

#include <stddef.h>

#include "remote/xml.h"

#define LIST_SPLIT_MAX 64 /* the most cuts one call makes */

/* One cut: a key that ends one range and starts the next. */
struct list_cut {
	size_t len;
	char key[XML_KEY_MAX];
};

/* The bytes the keys of a page use, position by position past the
 * prefix, to cut in the same alphabet. */
struct list_alphabet {
	unsigned char pos[XML_KEY_MAX][12]; /* printable bytes seen there */
	unsigned char all[12];              /* ... and anywhere */
};

/* Adds key (len bytes, past the prefix) to a (zeroed first). */
void list_alphabet_add(struct list_alphabet *a, const char *key, size_t len);

/*
 * Cuts for the rest of a range whose first page listed the keys first to
 * last (whole keys; first <= last), with the bytes a, and that ends at
 * high (highlen bytes; NULL: the end of the listing of prefix).  From
 * where the keys part, they read as numbers whose digits are, position by
 * position, the printable bytes a's keys used there (all ten digits where
 * one was, all letters of a case where two were); the rest (last, high] is
 * estimated in pages of the width first..last covered, and is cut when it holds
 * two or more: into ranges of two pages each, or, when that would take more
 * than max cuts, into ranges that double in width (the nearest, read first, the
 * smallest), the last reaching high.  A page whose keys all lie in one
 * folder, in a range that reaches past it, is cut at the folder's end
 * instead: two pages on in the folder, its end, then the folders after it
 * in their names' digits, two folders a range; the rest of a folder (a
 * range that ends at "F/~") takes at most 4 cuts.  Cuts hold printable ASCII
 * only past prefix (a start-after any server takes), ascend strictly and lie in
 * (last, high).  Writes at most max (up to LIST_SPLIT_MAX) cuts into out
 * and returns how many: 0, the range is not worth cutting.  Pure.
 */
size_t list_split_after(const char *prefix, const struct list_alphabet *a,
    const char *first, size_t firstlen, const char *last, size_t lastlen,
    const char *high, size_t highlen, size_t max, struct list_cut *out);

#endif
