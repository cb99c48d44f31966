/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* Two sets of axprof reports side by side, and the regression gate on
 * them: what gst-ax-compare prints and gst-ax-benchmark --baseline adds. */

#ifndef __AX_COMPARE_H__
#define __AX_COMPARE_H__

#include <gst/ax/ax.h>

G_BEGIN_DECLS
/* a figure must rise by more than this much CPU per frame (ms) as well as
 * by the percentage before the gate counts it: the run-to-run noise of a
 * row costing a few hundredths of a millisecond is larger than any
 * percentage */
#define AX_COMPARE_DEFAULT_NOISE_FLOOR_MS 0.05
typedef struct _AxCompareSide AxCompareSide;

typedef struct
{
  /* < 0: no gate, the table only */
  gdouble max_regression_percent;
  gdouble noise_floor_ms;
} AxCompareOptions;

void ax_compare_options_init (AxCompareOptions * o);

/* One side: the median of each figure over the reports (repeats of one
 * configuration), rows matched by group and name. */
AxCompareSide *ax_compare_side_new (GstAxReport ** reports, guint n);
/* Reads a comma-separated list of report JSON files; NULL with error
 * naming the file that could not be read. */
AxCompareSide *ax_compare_side_load (const gchar * paths, GError ** error);
void ax_compare_side_free (AxCompareSide * side);

/* The side-by-side table; *regressions (when not NULL) gets one line per
 * figure over the gate, empty when none or when there is no gate. */
gchar *ax_compare_format (const AxCompareSide * a, const AxCompareSide * b,
    const gchar * label_a, const gchar * label_b, const AxCompareOptions * o,
    GPtrArray ** regressions);

G_END_DECLS
#endif /* __AX_COMPARE_H__ */
