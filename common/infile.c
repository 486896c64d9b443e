/*
 * infile.c: the files a user names for ferry to read (token files, filter
 * lists, keys), opened so that what stands at the name cannot stall or
 * flood the run.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common.h"

/* What st is, for a message; "" for a regular file. */
static const char *
kind_name(const struct stat *st)
{
	if (S_ISREG(st->st_mode))
		return "";
	if (S_ISFIFO(st->st_mode))
		return "a fifo";
	if (S_ISDIR(st->st_mode))
		return "a folder";
	if (S_ISCHR(st->st_mode) || S_ISBLK(st->st_mode))
		return "a device";
	if (S_ISSOCK(st->st_mode))
		return "a socket";
	return "not a regular file";
}

ferry_err
infile_open(const char *path, int *fd)
{
	struct stat st;
	const char *kind;

	/* O_NONBLOCK: a fifo opens at once rather than wait for a writer */
	*fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (*fd < 0)
		return ferry_fail(FERRY_ESYS, "%s", strerror(errno));
	if (fstat(*fd, &st) != 0) {
		kind = strerror(errno);
	} else if ((kind = kind_name(&st))[0] == '\0') {
		return FERRY_OK;
	}
	close(*fd);
	*fd = -1;
	return ferry_fail(FERRY_EUSAGE, "%s, not a regular file", kind);
}

ferry_err
infile_read(int fd, void *p, size_t cap, size_t *got)
{
	ssize_t n;

	do
		n = read(fd, p, cap);
	while (n < 0 && errno == EINTR);
	*got = n > 0 ? (size_t)n : 0;
	return n < 0 ? ferry_fail(FERRY_ESYS, "%s", strerror(errno)) : FERRY_OK;
}
