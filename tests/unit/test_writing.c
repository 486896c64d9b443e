/* test_writing.c: the files being written (sync/watch/writing.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "sync/watch/writing.h"

/* The paths held, joined by ' ', into buf. */
static const char *
held(struct watch_writing *s, char *buf, size_t n)
{
	size_t i, off = 0;

	buf[0] = '\0';
	for (i = 0; i < watch_writing_count(s); i++)
		off += (size_t)snprintf(buf + off, n - off, "%s%s",
		    i ? " " : "", watch_writing_at(s, i)->path);
	return buf;
}

/* One step: an event on a path, and the set after it. */
struct step {
	char op; /* 't' touch, 'e' end, 'd' drop below */
	const char *path;
	const char *want;
};

static const struct step steps[] = {
    {'t', "b", "b"},
    {'t', "a/x", "a/x b"},
    {'t', "a-x", "a-x a/x b"},
    {'t', "a", "a a-x a/x b"},
    {'t', "a/y/z", "a a-x a/x a/y/z b"},
    {'t', "b", "a a-x a/x a/y/z b"},
    /* below "a": not "a" itself, not "a-x" (which sorts among them) */
    {'d', "a", "a a-x b"},
    {'e', "a-x", "a b"},
    {'e', "zz", "a b"},
    {'e', "a", "b"},
    {'d', "b", "b"},
    {'e', "b", ""},
    {'d', "b", ""},
    {'t', "c/d", "c/d"},
};

static void
test_writing_steps(void **state)
{
	struct watch_writing *s = watch_writing_new();
	char buf[256];
	size_t i;

	(void)state;
	assert_non_null(s);
	for (i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		const struct step *st = &steps[i];

		if (st->op == 't')
			assert_int_equal(
			    watch_writing_touch(s, st->path, (int64_t)i), 1);
		else if (st->op == 'e')
			watch_writing_end(s, st->path);
		else
			watch_writing_drop_below(s, st->path);
		assert_string_equal(held(s, buf, sizeof(buf)), st->want);
	}
	watch_writing_free(s);
}

/* The first write's time is kept, the last moves. */
static void
test_writing_times(void **state)
{
	struct watch_writing *s = watch_writing_new();
	struct watch_written *e;

	(void)state;
	assert_int_equal(watch_writing_touch(s, "f", 5), 1);
	assert_int_equal(watch_writing_touch(s, "f", 9), 1);
	e = watch_writing_at(s, 0);
	assert_int_equal(e->first_ns, 5);
	assert_int_equal(e->last_ns, 9);
	assert_null(watch_writing_at(s, 1));
	watch_writing_drop(s, 0);
	assert_int_equal(watch_writing_count(s), 0);
	watch_writing_drop(s, 0);
	watch_writing_free(s);
	watch_writing_free(NULL);
	assert_int_equal(watch_writing_touch(NULL, "f", 1), 0);
	assert_int_equal(watch_writing_count(NULL), 0);
}

/* Bounded: the file past WATCH_WRITING_MAX is not kept, the others are. */
static void
test_writing_bound(void **state)
{
	struct watch_writing *s = watch_writing_new();
	char p[32];
	int i;

	(void)state;
	for (i = 0; i < WATCH_WRITING_MAX; i++) {
		snprintf(p, sizeof(p), "f%05d", i);
		assert_int_equal(watch_writing_touch(s, p, i), 1);
	}
	assert_int_equal(watch_writing_touch(s, "over", 1), 0);
	/* one kept already is still taken */
	assert_int_equal(watch_writing_touch(s, "f00007", 1), 1);
	assert_int_equal(watch_writing_count(s), WATCH_WRITING_MAX);
	watch_writing_end(s, "f00007");
	assert_int_equal(watch_writing_touch(s, "over", 1), 1);
	watch_writing_free(s);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_writing_steps),
	    cmocka_unit_test(test_writing_times),
	    cmocka_unit_test(test_writing_bound),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
