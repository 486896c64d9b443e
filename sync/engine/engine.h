/*
 * engine.h: the face of sync/engine/, which owns running transfers: the
 * one engine that keeps the transfers of any run in flight on one curl
 * multi loop under --jobs and --memory, with their failure path and the
 * content check any transfer may ask (transfer.h); the steps every run
 * takes around it, from its start to its end (steps.h); and a file's
 * POSIX metadata, extended attributes and ACLs as its object carries
 * them (posix.h, xattr.h).  Includes sync/merge/, sync/run/ and
 * sync/plan/ below it, never sync/up/ or sync/down/.
 */
#ifndef FERRY_SYNC_ENGINE_H
#define FERRY_SYNC_ENGINE_H

#include "sync/engine/posix.h"
#include "sync/engine/steps.h"
#include "sync/engine/xattr.h"
#include "sync/engine/transfer.h"

#endif
