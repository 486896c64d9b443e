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
	ferry_catch_signals();
	if (strcmp(o.command, "ls") == 0) {
		rc = sync_ls(&o);
	} else if (strcmp(o.command, "manifest") == 0) {
		rc = sync_manifest_info(&o);
	} else if (strcmp(o.command, "apply") == 0) {
		rc = sync_apply(&o);
	} else if (remote_is_url(o.src) && remote_is_url(o.dst)) {
		rc = sync_mirror(&o);
	} else if (remote_is_url(o.src)) {
		rc = sync_pull(&o);
	} else if (!remote_is_url(o.dst)) {
		log_error("one side must be s3://BUCKET[/PREFIX]");
		rc = EXIT_USAGE;
	} else {
		rc = sync_push(&o);
	}
	cli_clear(&o);
	return rc;
}
