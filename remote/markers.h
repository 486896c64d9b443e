/*
 * markers.h: the listings paged by a key marker and an id marker, as
 * replies.c reads them.  Private to remote/.
 */
#ifndef FERRY_REMOTE_MARKERS_H
#define FERRY_REMOTE_MARKERS_H

#include "remote/internal.h"

/* replies.c */
/*
 * A listing paged by a key marker and an id marker (ListMultipartUploads,
 * ListObjectVersions): the subresource that names it, the query word of
 * its id marker, and the parser of one page, which calls its caller back
 * through ctx and returns the next markers (malloc'd) as the xml_list_*
 * parsers do.
 */
struct remote_marker_list {
	const char *op; /* "ListObjectVersions", for messages */
	const char *subresource;
	const char *id_param;
	int url_encoded; /* ask for encoding-type=url */
	ferry_err (*parse)(const char *body, size_t len, void *ctx, int *more,
	    char **key_marker, char **id_marker);
	void *ctx;
};
/*
 * Lists every page of ml under bucket/prefix, in this call, running the
 * loop while it waits.  Markers that do not move on from one page to the
 * next are the server's fault: FERRY_EPARSE.  Else the first failure of a
 * request or a parse.
 */
ferry_err remote_list_markers(struct remote *r, const char *bucket,
    const char *prefix, const struct remote_marker_list *ml) FERRY_WUR;

#endif
