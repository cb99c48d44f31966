/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* An application of the installed gst-ax, built by test-install.py with
 * nothing but `pkg-config --cflags --libs gstreamer-ax-1.0`: it uses the
 * public headers, GstVideo (which they include) and json-glib (which
 * reads the report's JSON), so all three must come from that one
 * pkg-config call. Prints the file the installed library finds for a
 * model name, or "not found: " and the paths it looked at. */

#include <gst/ax/ax.h>
#include <json-glib/json-glib.h>

#define REPORT_JSON "{\"pipeline\": \"pipeline0\", \"rows\": []}"

int
main (int argc, char **argv)
{
  GstVideoInfo info;
  JsonParser *parser;
  gchar *tried = NULL, *path;
  int status = 0;

  if (argc != 2) {
    g_printerr ("usage: find-model NAME\n");
    return 2;
  }
  gst_video_info_init (&info);
  parser = json_parser_new ();
  if (!json_parser_load_from_data (parser, REPORT_JSON, -1, NULL)) {
    g_printerr ("json-glib could not read a report\n");
    status = 1;
  }
  g_object_unref (parser);

  path = gst_ax_model_find (argv[1], &tried);
  if (path != NULL) {
    g_print ("%s\n", path);
  } else {
    g_print ("not found: %s\n", tried);
    status = 1;
  }
  g_free (path);
  g_free (tried);
  return status;
}
