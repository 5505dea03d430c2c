/* SPDX-License-Identifier: GPL-2.0 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM blk_lifetime

#if !defined(_TRACE_BLK_LIFETIME_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_BLK_LIFETIME_H

#include <linux/tracepoint.h>

/**
 * blk_lifetime_layout - the lifetime policy installed a layout
 * @disk: the disk
 * @reason: why it planned: "first", "tenants", "learned", "hints",
 *	"drift", "budget", "streams" or "operator"
 * @tenants: tenants the layout serves
 * @streams: streams it uses
 * @classes: classes over all tenants
 * @worth: estimated garbage-collection copies its boundaries save, bytes
 * @reclaim_age: reclaim age it planned for, in bytes of host writes
 * @shadow: the instance runs in shadow (queue/write_stream_shadow)
 */
TRACE_EVENT(blk_lifetime_layout,
	    TP_PROTO(struct gendisk *disk, const char *reason,
		     unsigned int tenants, unsigned int streams,
		     unsigned int classes, u64 worth, u64 reclaim_age,
		     bool shadow),
	    TP_ARGS(disk, reason, tenants, streams, classes, worth, reclaim_age,
		    shadow),
	    TP_STRUCT__entry(__field(dev_t, dev)
			     __string(reason, reason)
			     __field(unsigned int, tenants)
			     __field(unsigned int, streams)
			     __field(unsigned int, classes)
			     __field(u64, worth)
			     __field(u64, reclaim_age)
			     __field(bool, shadow)),
	    TP_fast_assign(__entry->dev = disk_devt(disk);
			   __assign_str(reason);
			   __entry->tenants = tenants;
			   __entry->streams = streams;
			   __entry->classes = classes;
			   __entry->worth = worth;
			   __entry->reclaim_age = reclaim_age;
			   __entry->shadow = shadow),
	    TP_printk("%d,%d reason=%s tenants=%u streams=%u classes=%u worth=%llu reclaim_age=%llu shadow=%u",
		      MAJOR(__entry->dev), MINOR(__entry->dev), __get_str(reason),
		      __entry->tenants, __entry->streams, __entry->classes,
		      __entry->worth, __entry->reclaim_age, __entry->shadow));

#endif /* _TRACE_BLK_LIFETIME_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE lifetime_trace
#include <trace/define_trace.h>
