/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* libFuzzer target: simnpu-annotate's readers, the debug information
 * (actions.csv, device.txt) and the runtime CSV, then the join as the
 * tool writes it (annotated CSV or Perfetto trace, and the overview):
 * the tool's own main on files holding the input.
 *
 * Input: actions.csv, device.txt and runtime.csv, in that order,
 * separated by NUL bytes; a missing part is an empty file. */

#include "fuzz-common.h"

#include <fcntl.h>
#include <glib/gstdio.h>
#include <unistd.h>

/* the tool itself, with its main renamed */
int simnpu_annotate_main (int argc, char **argv);
#define main simnpu_annotate_main
#include "../../sim-npu/tools/simnpu-annotate.c"
#undef main

enum
{
  PART_ACTIONS,
  PART_DEVICE,
  PART_RUNTIME,
  N_PARTS
};

static const char *const part_names[N_PARTS] = {
  "actions.csv", "device.txt", "runtime.csv"
};

#define SHM_SCRATCH "/dev/shm/fuzz-annotate-XXXXXX"

static gchar *scratch_dir;
static const char *const scratch_files[] = {
  "actions.csv", "device.txt", "runtime.csv", "annotated.csv", "annotated.pb"
};

static void
remove_scratch (void)
{
  unsigned i;

  for (i = 0; i < G_N_ELEMENTS (scratch_files); i++) {
    gchar *path = g_build_filename (scratch_dir, scratch_files[i], NULL);

    g_unlink (path);
    g_free (path);
  }
  g_rmdir (scratch_dir);
}

static gchar *
scratch (const char *name)
{
  return g_build_filename (scratch_dir, name, NULL);
}

static void
write_part (const char *name, const uint8_t * data, size_t size)
{
  gchar *path = scratch (name);

  if (!g_file_set_contents (path, (const gchar *) data, (gssize) size, NULL))
    abort ();
  g_free (path);
}

/* The tool's output and overview, which go to stdout, are not the
 * subject here: stdout points at /dev/null while they run. */
static int
silence_stdout (void)
{
  int saved, null_fd;

  fflush (stdout);
  saved = dup (STDOUT_FILENO);
  null_fd = open ("/dev/null", O_WRONLY);
  if (saved < 0 || null_fd < 0)
    abort ();
  dup2 (null_fd, STDOUT_FILENO);
  close (null_fd);
  return saved;
}

static void
restore_stdout (int saved)
{
  fflush (stdout);
  dup2 (saved, STDOUT_FILENO);
  close (saved);
}

int
LLVMFuzzerTestOneInput (const uint8_t * data, size_t size)
{
  char *argv[] = { (char *) "simnpu-annotate", NULL, NULL, NULL };
  const uint8_t *p = data, *end = data + size;
  gchar *runtime, *out;
  unsigned i;
  int saved;

  if (scratch_dir == NULL) {
    /* in memory when it can be: a run writes and reads four files */
    scratch_dir = g_strdup (SHM_SCRATCH);
    if (g_mkdtemp (scratch_dir) == NULL) {
      g_free (scratch_dir);
      scratch_dir = g_dir_make_tmp ("fuzz-annotate-XXXXXX", NULL);
    }
    if (scratch_dir == NULL)
      abort ();
    atexit (remove_scratch);
  }
  for (i = 0; i < N_PARTS; i++) {
    const uint8_t *sep = i + 1 < N_PARTS ? memchr (p, '\0', end - p) : NULL;
    const uint8_t *stop = sep ? sep : end;

    write_part (part_names[i], p, (size_t) (stop - p));
    p = sep ? sep + 1 : end;
  }

  runtime = scratch (part_names[PART_RUNTIME]);
  /* both outputs in turn, by the input's length */
  out = scratch (size % 2 ? "annotated.pb" : "annotated.csv");
  argv[1] = scratch_dir;
  argv[2] = runtime;
  argv[3] = out;
  saved = silence_stdout ();
  simnpu_annotate_main (G_N_ELEMENTS (argv), argv);
  restore_stdout (saved);
  g_free (runtime);
  g_free (out);
  return 0;
}
