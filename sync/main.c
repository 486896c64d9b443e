/* main.c: ferry's entry point. */
#include "sync/sync.h"

int
main(int argc, char **argv)
{
	return sync_main(argc, argv);
}
