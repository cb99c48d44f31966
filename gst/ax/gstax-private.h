/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* Not installed: what libgstax shares with the axprof tracer, the
 * benchmark tool and the tests only. The verdict's tuning thresholds (they
 * change as the verdict learns; docs/reading-the-report.md gives their
 * values), the report and trace file writer and the DEBUG-level check. */

#ifndef __GST_AX_PRIVATE_H__
#define __GST_AX_PRIVATE_H__

#include <gst/ax/ax.h>
#include <gst/ax/gstaxdebugcheck.h>
#include <gst/ax/gstaxoutput.h>

G_BEGIN_DECLS

/**
 * GST_AX_REPORT_BLOCKED_CPU_RATIO:
 *
 * A row whose mean CPU is below this fraction of its mean wall is BLOCKED.
 */
#define GST_AX_REPORT_BLOCKED_CPU_RATIO 0.5
/**
 * GST_AX_REPORT_STRONGLY_BLOCKED_CPU_RATIO:
 *
 * A row whose mean CPU is below this fraction of its mean wall is STRONGLY
 * BLOCKED.
 */
#define GST_AX_REPORT_STRONGLY_BLOCKED_CPU_RATIO 0.1
/**
 * GST_AX_REPORT_MIN_CLASSIFIED_MS:
 *
 * Rows with a mean wall below this are too short for CPU and wall to be
 * compared meaningfully and are never flagged as blocked.
 */
#define GST_AX_REPORT_MIN_CLASSIFIED_MS 0.05

/**
 * GST_AX_REPORT_DEVICE_BOUND_OCCUPANCY_PERCENT:
 *
 * A device occupied at least this share of its cores' time is the
 * constraint.
 */
#define GST_AX_REPORT_DEVICE_BOUND_OCCUPANCY_PERCENT 80.0
/**
 * GST_AX_REPORT_WINDOW_BOUND_DEPTH_RATIO:
 *
 * A device whose achieved in-flight depth reaches this fraction of its
 * window is held by the window.
 */
#define GST_AX_REPORT_WINDOW_BOUND_DEPTH_RATIO 0.9
/**
 * GST_AX_REPORT_SUBMISSION_DEPTH_RATIO:
 *
 * A device whose achieved in-flight depth stays below this fraction of
 * its window is not fed by the submission loop.
 */
#define GST_AX_REPORT_SUBMISSION_DEPTH_RATIO 0.8
/**
 * GST_AX_REPORT_QUEUE_FULL_PERCENT:
 *
 * A queue full at least this share of the run is mostly full.
 */
#define GST_AX_REPORT_QUEUE_FULL_PERCENT 50.0
/**
 * GST_AX_REPORT_QUEUE_EMPTY_PERCENT:
 *
 * A queue empty at least this share of the run is mostly empty.
 */
#define GST_AX_REPORT_QUEUE_EMPTY_PERCENT 50.0
/**
 * GST_AX_REPORT_QUEUE_DROP_PERCENT:
 *
 * A leaky queue that drops at least this share of the buffers it takes
 * in is the constraint: the branch after it cannot keep up.
 */
#define GST_AX_REPORT_QUEUE_DROP_PERCENT 1.0
/**
 * GST_AX_REPORT_ALLOCATING_FAULTS_PER_CALL:
 *
 * A row taking at least this many page faults per call allocates its
 * output.
 */
#define GST_AX_REPORT_ALLOCATING_FAULTS_PER_CALL 10.0
/**
 * GST_AX_REPORT_ALLOCATING_OUTPUT_RATIO:
 *
 * A row allocates its output when its faults per call hand over at least
 * this fraction of the bytes it pushes per call (#GST_AX_REPORT_PAGE_BYTES
 * per fault): a row that makes each output buffer afresh takes about one
 * fault per page of it, one that pools its buffers a few whatever their
 * size. Rows whose output size is not known are judged by
 * #GST_AX_REPORT_ALLOCATING_FAULTS_PER_CALL alone.
 */
#define GST_AX_REPORT_ALLOCATING_OUTPUT_RATIO 0.5
/**
 * GST_AX_REPORT_PAGE_BYTES:
 *
 * The bytes a minor page fault hands over.
 */
#define GST_AX_REPORT_PAGE_BYTES 4096.0
/**
 * GST_AX_REPORT_HELD_DEPTH_RATIO:
 *
 * An in-flight window in which at least this fraction of the frames are
 * finished, waiting for the in-order push, is held by what runs after the
 * device on the output thread, not by the device: when the window is full
 * (#GST_AX_REPORT_WINDOW_BOUND_DEPTH_RATIO) or holds at least
 * #GST_AX_REPORT_HELD_MIN_FRAMES such frames.
 */
#define GST_AX_REPORT_HELD_DEPTH_RATIO 0.5
/**
 * GST_AX_REPORT_HELD_MIN_FRAMES:
 *
 * A window holds its finished frames back (see
 * #GST_AX_REPORT_HELD_DEPTH_RATIO) when, on average, at least this many
 * of them wait for the in-order push, whether or not the window is full.
 */
#define GST_AX_REPORT_HELD_MIN_FRAMES 1.0
/**
 * GST_AX_REPORT_OUTPUT_BUSY_RATIO:
 *
 * A window's finished frames are held by what runs after the model only
 * when those rows (downstream of it, and its own output-thread stages)
 * take at least this share of the run's wall time: a thread that is idle
 * most of the time holds nothing back, and frames finished out of order
 * wait for the earlier ones, not for it.
 */
#define GST_AX_REPORT_OUTPUT_BUSY_RATIO 0.5
/**
 * GST_AX_REPORT_SIM_LAG_RATIO:
 *
 * The simulator falls behind its device model when its outputs come, per
 * job, later than this fraction of the modelled device time and later than
 * #GST_AX_REPORT_SIM_LAG_MS.
 */
#define GST_AX_REPORT_SIM_LAG_RATIO 0.10
/**
 * GST_AX_REPORT_SIM_LAG_MS:
 *
 * Lag per job below this is a thread's wake-up, not a simulator that
 * falls behind (see #GST_AX_REPORT_SIM_LAG_RATIO).
 */
#define GST_AX_REPORT_SIM_LAG_MS 0.5
/**
 * GST_AX_REPORT_CHECK_TOLERANCE:
 *
 * Figures that must agree (occupancy against fps x device time, depth
 * against Little's law) may differ by this fraction before a warning.
 */
#define GST_AX_REPORT_CHECK_TOLERANCE 0.10

G_END_DECLS

#endif /* __GST_AX_PRIVATE_H__ */
