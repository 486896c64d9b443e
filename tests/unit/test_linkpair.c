/*
 * test_linkpair.c: a link's key whose plain twin was listed before it
 * (sync/linkpair.c), over sorted listings.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "sync/plan/linkpair.h"

struct listing {
	const char *name;
	const char *keys[10];
	const char *shadowed; /* one '0' or '1' a key */
};

static const struct listing listings[] = {
    {"a link alone", {"f.rclonelink"}, "0"},
    {"twins", {"f", "f.rclonelink"}, "01"},
    {"twins with keys between",
        {"f", "f!", "f-1", "f-1/x", "f.a", "f.rclonelink", "g"}, "0000010"},
    {"twins in a folder", {"d/f", "d/f.rclonelink", "e/f.rclonelink"}, "010"},
    {"a twin of another folder", {"d/f", "e/f.rclonelink"}, "00"},
    {"a longer name, not a twin", {"fo", "f.rclonelink"}, "00"},
    {"a folder marker and a link of no name", {"f/", "f/.rclonelink"}, "01"},
    {"a link's link", {"f.rclonelink", "f.rclonelink.rclonelink"}, "01"},
    {"the twin left out is no twin",
        {"f", "f.rclonelink", "f.rclonelink.rclonelink"}, "010"},
    {"the extension alone", {".rclonelink"}, "0"},
};

static void
test_listings(void **state)
{
	struct link_pairs *lp = malloc(sizeof(*lp));
	const struct listing *l;
	size_t i, j;
	int got;

	(void)state;
	assert_non_null(lp);
	for (i = 0; i < sizeof(listings) / sizeof(listings[0]); i++) {
		l = &listings[i];
		memset(lp, 0, sizeof(*lp));
		for (j = 0; l->keys[j] != NULL; j++) {
			got = link_pairs_shadowed(
			    lp, l->keys[j], strlen(l->keys[j]));
			if (got != l->shadowed[j] - '0')
				fail_msg("%s: key %s: got %d", l->name,
				    l->keys[j], got);
		}
	}
	free(lp);
}

/* Keys as long as keys go, each beginning the next: no overflow. */
static void
test_deep(void **state)
{
	struct link_pairs *lp = calloc(1, sizeof(*lp));
	char key[MANIFEST_KEY_MAX + 1];
	size_t n;

	(void)state;
	assert_non_null(lp);
	memset(key, 'a', sizeof(key));
	for (n = 1; n <= MANIFEST_KEY_MAX; n++)
		assert_int_equal(link_pairs_shadowed(lp, key, n), 0);
	memcpy(key + 1, ".rclonelink", 11);
	assert_int_equal(link_pairs_shadowed(lp, key, 12), 1);
	free(lp);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_listings),
	    cmocka_unit_test(test_deep),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
