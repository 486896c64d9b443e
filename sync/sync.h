/*
 * sync.h: ferry's commands.  main() only hands the command line here.
 */
#ifndef FERRY_SYNC_H
#define FERRY_SYNC_H

/*
 * Runs the command in argv and returns the process exit status: 0 all in
 * sync, 1 the run finished but some objects failed, 2 usage or
 * configuration error, 3 the run was aborted.
 */
int sync_main(int argc, char **argv);

#endif
