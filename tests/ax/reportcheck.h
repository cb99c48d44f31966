/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* A check shared by the report tests of libgstax and of the tracer. */

#ifndef __AX_REPORT_CHECK_H__
#define __AX_REPORT_CHECK_H__

#include <gst/check/gstcheck.h>
#include <gst/ax/gstaxreport.h>

/* to_json (new_from_json (j)) == j, and the text is the same too. */
static inline void
ax_assert_report_round_trip (const GstAxReport * r)
{
  gchar *json = gst_ax_report_to_json (r), *json2, *text, *text2;
  GError *err = NULL;
  GstAxReport *back = gst_ax_report_new_from_json (json, &err);

  fail_unless (back != NULL, "%s", err ? err->message : "?");
  json2 = gst_ax_report_to_json (back);
  fail_unless_equals_string (json2, json);
  text = gst_ax_report_to_text (r);
  text2 = gst_ax_report_to_text (back);
  fail_unless_equals_string (text2, text);
  gst_ax_report_unref (back);
  g_free (json);
  g_free (json2);
  g_free (text);
  g_free (text2);
}

#endif /* __AX_REPORT_CHECK_H__ */
