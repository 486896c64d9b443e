/*
 * test_mime.c: the Content-Type an upload gets from its key's extension.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "sync/up/mime.h"

static const struct {
	const char *key;
	const char *type; /* NULL: no Content-Type */
} cases[] = {
    {"index.html", "text/html"},
    {"site/css/main.css", "text/css"},
    {"app.mjs", "text/javascript"},
    {"photos/2024/IMG_0001.JPG", "image/jpeg"},
    {"a.Jpeg", "image/jpeg"},
    {"report.pdf", "application/pdf"},
    {"font.woff2", "font/woff2"},
    {"movie.mp4", "video/mp4"},
    {"data.json", "application/json"},
    {"feed.xml", "application/xml"},
    {"ci.yml", "application/yaml"},
    {"site.webmanifest", "application/manifest+json"},
    /* the last extension counts, as rclone has it */
    {"backup.tar.gz", "application/gzip"},
    {"a.b.txt", "text/plain"},
    {"archive.tar", "application/x-tar"},
    /* no extension, or an unknown one */
    {"README", NULL},
    {"Makefile", NULL},
    {"notes.", NULL},
    {"data.bin2", NULL},
    {"x.htmlx", NULL},
    {"x.htm", "text/html"},
    {"x.h", NULL},
    {"", NULL},
    {".", NULL},
    /* a hidden name's leading dots begin no extension */
    {".html", NULL},
    {"..html", NULL},
    {"home/.profile", NULL},
    {".config/app.json", "application/json"},
    {".site.css", "text/css"},
    /* only the last segment has an extension */
    {"v1.2/README", NULL},
    {"pages.html/", NULL},
    {"dir.png/file", NULL},
};

static void
test_types(void **state)
{
	size_t i;
	const char *got;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		got = mime_type(cases[i].key, strlen(cases[i].key));
		if (cases[i].type == NULL && got == NULL)
			continue;
		if (cases[i].type == NULL || got == NULL ||
		    strcmp(got, cases[i].type) != 0)
			fail_msg("%s: got %s, want %s", cases[i].key,
			    got ? got : "(none)",
			    cases[i].type ? cases[i].type : "(none)");
	}
}

/* The length is the key's end: bytes after it are not read. */
static void
test_length_bounds_the_key(void **state)
{
	static const char key[] = "page.html.bak";

	(void)state;
	assert_string_equal(mime_type(key, 9), "text/html");
	assert_null(mime_type(key, strlen(key)));
	assert_string_equal(mime_type(key, 8), "text/html"); /* "page.htm" */
	assert_null(mime_type(key, 5));                      /* "page." */
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_types),
	    cmocka_unit_test(test_length_bounds_the_key),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
