/*
 * cmd.h: the face of sync/cmd/, which owns the commands that are neither
 * a push, a pull nor a mirror but drive them or read their work: "ferry
 * apply" (a plan file run through the engine of a push, pull or mirror),
 * "ferry plan --split", "ferry verify", "ferry ls" and "ferry manifest
 * info".  Each returns the process's exit status.
 */
#ifndef FERRY_SYNC_CMD_H
#define FERRY_SYNC_CMD_H

#include "sync/run/run.h"

/* apply.c: "ferry apply PLAN" (opts->src names the plan file). */
int sync_apply(const struct sync_opts *opts);
/* verify.c: "ferry verify SOURCE DESTINATION". */
int sync_verify(const struct sync_opts *opts);
/* ls.c: "ferry ls". */
int sync_ls(const struct sync_opts *opts);
/* info.c: "ferry manifest info". */
int sync_manifest_info(const struct sync_opts *opts);

/*
 * ferry plan --split: runs run(o) (the plan) with stdout in a temporary
 * file beside o->split_prefix, splits what it wrote into o->split parts
 * when the plan finished, and copies the whole plan to stdout.  Returns
 * run's exit status, or that of the failure to split.
 */
int sync_plan_split(
    const struct sync_opts *o, int (*run)(const struct sync_opts *));

#endif
