/*
 * run.h: the face of sync/run/, which owns what every run holds: the
 * read-only options and the exit statuses (opts.h), what a run tells
 * (output.h: JSON lines or words, the progress line, the counts; its
 * metrics file, metrics.h), and the manifest's commits and the drain
 * after a fatal error (commit.h).
 * Includes sync/plan/ below it.
 */
#ifndef FERRY_SYNC_RUN_H
#define FERRY_SYNC_RUN_H

#include "sync/run/commit.h"
#include "sync/run/metrics.h"
#include "sync/run/opts.h"
#include "sync/run/output.h"

#endif
