/*
 * plan.h: the face of sync/plan/, which owns what happens to each key,
 * decided without I/O: the decision of one key from the facts at hand
 * (decide.h), --include and --exclude rules (filter.h), --shard I/N
 * (shard.h), the plan file that "ferry plan" writes and "ferry apply"
 * reads (planfile.h), and the link pairs of a listing (linkpair.h).
 * Includes common/, manifest/ and remote/, no wing of sync/.
 */
#ifndef FERRY_SYNC_PLAN_H
#define FERRY_SYNC_PLAN_H

#include "sync/plan/decide.h"
#include "sync/plan/filter.h"
#include "sync/plan/linkpair.h"
#include "sync/plan/planfile.h"
#include "sync/plan/shard.h"

#endif
