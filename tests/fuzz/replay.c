/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* Runs a fuzz target's entry point on every file given on the command
 * line and every file of the directories given there (the seed corpus), so
 * that the normal test suite replays it without libFuzzer. */

#include "fuzz-common.h"

#include <stdio.h>

static int
replay_file (const char *path)
{
  gchar *data = NULL;
  gsize len = 0;

  if (!g_file_get_contents (path, &data, &len, NULL)) {
    fprintf (stderr, "replay: cannot read '%s'\n", path);
    return 0;
  }
  LLVMFuzzerTestOneInput ((const uint8_t *) data, len);
  g_free (data);
  return 1;
}

int
main (int argc, char **argv)
{
  unsigned n = 0;
  int i;

  for (i = 1; i < argc; i++) {
    GDir *dir;
    const char *name;

    if (g_file_test (argv[i], G_FILE_TEST_IS_REGULAR)) {
      if (!replay_file (argv[i]))
        return 1;
      n++;
      continue;
    }
    dir = g_dir_open (argv[i], 0, NULL);
    if (dir == NULL) {
      fprintf (stderr, "replay: cannot open corpus '%s'\n", argv[i]);
      return 1;
    }
    while ((name = g_dir_read_name (dir)) != NULL) {
      gchar *path = g_build_filename (argv[i], name, NULL);

      if (!replay_file (path))
        return 1;
      g_free (path);
      n++;
    }
    g_dir_close (dir);
  }
  printf ("replayed %u inputs\n", n);
  return n > 0 ? 0 : 1;
}
