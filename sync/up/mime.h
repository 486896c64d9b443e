/*
 * mime.h: the Content-Type of an upload, from its name's extension, as
 * aws s3 sync, rclone, s3cmd and mc give one: a website or a browser
 * served from the bucket then gets text/html for index.html, not the
 * server's binary/octet-stream.
 */
#ifndef FERRY_MIME_H
#define FERRY_MIME_H

#include <stddef.h>

/*
 * The media type for the key's extension (after the last '.' of its last
 * segment, in any case), or NULL when it has none or one not known: the
 * upload then goes without a Content-Type.  The dots a name starts with
 * begin no extension (".profile" has none).
 */
const char *mime_type(const char *key, size_t keylen);

#endif
