/*
 * libkvpool: native memory core of the kvpool data plane.
 * One header per public surface; this one pulls them all in.
 */
#ifndef KVPOOL_H
#define KVPOOL_H

#include "kvpool_segment.h"
#include "kvpool_copy.h"
#include "kvpool_crc32c.h"
#include "kvpool_device.h"

#endif
