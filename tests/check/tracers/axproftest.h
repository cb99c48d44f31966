/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

#ifndef __AX_PROF_TEST_H__
#define __AX_PROF_TEST_H__

#include <gst/check/gstcheck.h>
#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/* One axprof-report bus message, parsed. */
typedef struct
{
  gchar *pipeline;
  gchar *status;
  gchar *text;
  gchar *json;
  /* the usage reader axprof ran with: "perf" or "rusage" */
  gchar *usage_reader;
  /* the bus message's machine-readable verdict */
  gchar *verdict_kind;
  gchar *verdict_element;
  /* the outputs the tracer could not write, one a line, or NULL */
  gchar *output_errors;
  JsonParser *parser;
  JsonObject *root;
} AxProfReport;

/* Collects axprof-report messages synchronously, so that a report posted
 * while the pipeline shuts down is not lost to bus flushing. */
void ax_prof_watch (GstElement * pipeline, GPtrArray * reports);
/* the bus sync handler ax_prof_watch() sets, for handlers that chain it */
GstBusSyncReply ax_prof_collect_report (GstBus * bus, GstMessage * msg,
    gpointer reports);
AxProfReport *ax_prof_run (const gchar * description);
/* leaves the pipeline at EOS in *at_eos: the caller stops and unrefs it */
AxProfReport *ax_prof_run_full (const gchar * description,
    GstElement ** at_eos);
/* the same for a pipeline built by the caller, which it takes */
AxProfReport *ax_prof_run_pipeline (GstElement * pipeline,
    GstElement ** at_eos);
void ax_prof_report_free (AxProfReport * report);
AxProfReport *ax_prof_report_from_structure (const GstStructure * s);

JsonObject *ax_prof_find_group (JsonObject * root, const gchar * group);
JsonObject *ax_prof_find_row (JsonObject * root, const gchar * group,
    const gchar * row);
gboolean ax_prof_row_has_flag (JsonObject * row, const gchar * flag);
JsonObject *ax_prof_find_queue (JsonObject * root, const gchar * name);

G_END_DECLS

#endif /* __AX_PROF_TEST_H__ */
