/* main_cmd.c: from the command line to the command. */
#include <string.h>

#include "sync/internal.h"
#include "sync/sync.h"

int
sync_main(int argc, char **argv)
{
	struct sync_opts o;
	int rc;

	if ((rc = cli_parse(argc, argv, &o)) >= 0) {
		cli_clear(&o);
		return rc;
	}
	if (strcmp(o.command, "ls") == 0) {
		rc = sync_ls(&o);
	} else if (remote_is_url(o.src)) {
		log_error("%s is not available in this version",
		    remote_is_url(o.dst) ? "bucket-to-bucket mirror"
		                         : "pull (bucket to folder)");
		rc = EXIT_USAGE;
	} else if (!remote_is_url(o.dst)) {
		log_error("one side must be s3://BUCKET[/PREFIX]");
		rc = EXIT_USAGE;
	} else {
		rc = sync_push(&o);
	}
	cli_clear(&o);
	return rc;
}
